package dev.levee.gateway.pipeline;

/** Tests elsewhere: force {@link StreamsInFlight}'s thresholds, so that a few streams take the many-streams path. */
public final class StreamThresholds {

  private StreamThresholds() {}

  /** Every stream on a thread of its own, waiting for its upstream with no thread. */
  public static void everyStreamWaitsWithNoThread() {
    StreamsInFlight.setThresholds(0, 0);
  }

  /** Every stream on a thread of its own, parked in its reads as a few streams are (a control). */
  public static void everyStreamOnItsOwnThread() {
    StreamsInFlight.setThresholds(0, Integer.MAX_VALUE);
  }

  /** The production thresholds again. */
  public static void restore() {
    StreamsInFlight.restoreThresholds();
  }
}
