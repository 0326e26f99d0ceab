package dev.levee.gateway.config;

/**
 * What a feature does with a request it cannot answer now ({@code features.<name>.on-outage}).
 * Issue 12: the seed's disaster-recovery manager.
 */
public enum OnOutage {
  /** The default: the outage error (or the T3 answer), and the work is the client's to retry. */
  OFF,
  /**
   * A non-streaming request is kept as a job and answered later: when every target failed, when
   * the feature is at T3, and — degraded mode — while the feature is at T1 or below for requests
   * under its {@code immediate-priority}.
   */
  QUEUE
}
