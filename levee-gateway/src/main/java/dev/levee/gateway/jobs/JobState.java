package dev.levee.gateway.jobs;

import java.util.Locale;

/** Where a job is in its life. {@code queued → running → succeeded | failed}, or it ends {@code cancelled} or {@code expired}. */
public enum JobState {
  QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED, EXPIRED;

  /** The stored and shown name, lower case. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static JobState ofWire(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }

  /** Whether the job has ended (a result or a reason is recorded, and nothing more happens). */
  public boolean ended() {
    return this != QUEUED && this != RUNNING;
  }
}
