package dev.levee.core.chain;

import dev.levee.core.retry.Failure;
import java.time.Duration;

/**
 * Told the outcome of every upstream call, once per call: feeds SLI windows, router statistics
 * and metrics. Must be thread-safe and fast; it runs on the request's thread.
 */
public interface CallObserver {

  /**
   * A call succeeded.
   *
   * @param latency time to the answer (JSON) or to the first token (streams)
   */
  void onSuccess(Target target, Duration latency);

  /**
   * A call succeeded, saying what its latency measures: {@code firstToken} for a stream's time to
   * its first token, otherwise a whole answer's time, which grows with the answer's length and so
   * says little about the target's health. Defaults to {@link #onSuccess(Target, Duration)};
   * an observer whose signal is the target's health (the tiers' SLI windows) tells them apart.
   */
  default void onSuccess(Target target, Duration latency, boolean firstToken) {
    onSuccess(target, latency);
  }

  /** A call failed; {@code latency} is the time until the failure was known. */
  void onFailure(Target target, Failure failure, Duration latency);

  /** Tells {@code first}, then {@code second}. */
  static CallObserver both(CallObserver first, CallObserver second) {
    return new CallObserver() {
      @Override
      public void onSuccess(Target target, Duration latency) {
        first.onSuccess(target, latency);
        second.onSuccess(target, latency);
      }

      @Override
      public void onSuccess(Target target, Duration latency, boolean firstToken) {
        first.onSuccess(target, latency, firstToken);
        second.onSuccess(target, latency, firstToken);
      }

      @Override
      public void onFailure(Target target, Failure failure, Duration latency) {
        first.onFailure(target, failure, latency);
        second.onFailure(target, failure, latency);
      }
    };
  }

  /** An observer that ignores everything. */
  CallObserver NONE = new CallObserver() {
    @Override
    public void onSuccess(Target target, Duration latency) {}

    @Override
    public void onFailure(Target target, Failure failure, Duration latency) {}
  };
}
