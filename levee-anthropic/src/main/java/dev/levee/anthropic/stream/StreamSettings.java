package dev.levee.anthropic.stream;

import dev.levee.core.time.Spans;
import java.time.Duration;

/**
 * Limits and switches of stream handling.
 *
 * @param ttftTimeout the longest wait for an attempt's first content delta (default 15 s)
 * @param idleTimeout the longest silence between content events; pings do not count (default 30 s)
 * @param holdLimit the most events read before the first content delta (default 64)
 * @param maxRecoveries breaks recovered for one stream (default 5; config key {@code max-resumes}); the
 *     continuation that takes a recovered answer on to its {@code max_tokens} is part of its break's
 * @param recoveryWindow the time allowed to recover one break: a fresh deadline from the break,
 *     since a long healthy stream may outlive the request's own deadline (default 30 s); also the
 *     silence a stream may spend in stalls, summed, before a further stall is not recovered
 * @param dropDuplicates whether a content delta byte-identical to the one just before it, at the
 *     same block, is dropped as a replayed event (default false: such pairs are only counted,
 *     because a model may genuinely stream the same chunk twice, e.g. " very", " very")
 */
public record StreamSettings(Duration ttftTimeout, Duration idleTimeout, int holdLimit, int maxRecoveries,
    Duration recoveryWindow, boolean dropDuplicates) {

  public static final StreamSettings DEFAULT =
      new StreamSettings(Duration.ofSeconds(15), Duration.ofSeconds(30), 64, 5, Duration.ofSeconds(30), false);

  public StreamSettings {
    positive(ttftTimeout, "ttft-timeout");
    positive(idleTimeout, "idle-timeout");
    positive(recoveryWindow, "recovery-window");
    if (holdLimit < 1) {
      throw new IllegalArgumentException("hold-limit must be at least 1, was " + holdLimit);
    }
    if (maxRecoveries < 0) {
      throw new IllegalArgumentException("max-resumes must not be negative, was " + maxRecoveries);
    }
  }

  /** Refuses a timeout that is not above zero, naming its config key ({@code policy.stream.<key>}). */
  private static void positive(Duration timeout, String key) {
    if (!timeout.isPositive()) {
      throw new IllegalArgumentException(key + " must be positive, was " + Spans.of(timeout));
    }
  }
}
