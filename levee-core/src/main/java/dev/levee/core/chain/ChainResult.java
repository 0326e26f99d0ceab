package dev.levee.core.chain;

import dev.levee.core.retry.Failure;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How a {@link FallbackChain} ended for one request.
 *
 * @param <T> the protocol's response type
 */
public sealed interface ChainResult<T> {

  /** Every step taken, in order. */
  List<AttemptRecord> steps();

  /** Upstream calls made. */
  default int calls() {
    int calls = 0;
    for (AttemptRecord step : steps()) { // once or twice per request: a loop, not a stream
      if (step.called()) {
        calls++;
      }
    }
    return calls;
  }

  /**
   * A target answered. The caller must {@link Completion complete} it once the answer has been
   * relayed (JSON) or the stream has ended.
   *
   * @param fallback whether the answering target is not the chain's first
   */
  record Answered<T>(T response, Target target, Completion completion, boolean fallback, List<AttemptRecord> steps)
      implements ChainResult<T> {}

  /**
   * A non-transient failure (the client's own error) that must reach the client at once, with
   * the upstream's status and body.
   */
  record Rejected<T>(Target target, Failure failure, T response, List<AttemptRecord> steps)
      implements ChainResult<T> {}

  /**
   * Every target was tried, skipped or ran out of time.
   *
   * @param lastFailure the last classified failure, or null when no call was made
   * @param lastResponse the upstream response of that failure, or null
   * @param retryAfter the earliest a client could usefully try again, from open breakers and
   *     stated waits, when known
   * @param allOpen whether every target was skipped by an open circuit breaker
   * @param targets one line per target on how it ended
   */
  record Exhausted<T>(
      Failure lastFailure,
      T lastResponse,
      Optional<Duration> retryAfter,
      boolean allOpen,
      List<TargetReport> targets,
      List<AttemptRecord> steps) implements ChainResult<T> {}

  /** The client went away; nothing is owed to anyone. */
  record Cancelled<T>(List<AttemptRecord> steps) implements ChainResult<T> {}

  /**
   * How one target ended, as facts; the layer that talks to clients words them (in the gateway,
   * e.g. {@code "529 overloaded_error (3 calls)"} or {@code "circuit open (20 s left)"}).
   *
   * @param target the target
   * @param why how it ended
   * @param calls upstream calls made to it (0 unless {@code why} is {@link Why#FAILED})
   * @param failure the last classified failure when {@code why} is {@link Why#FAILED}, else null
   * @param openFor the time left until its breaker admits a trial when {@code why} is {@link
   *     Why#CIRCUIT_OPEN}, or when it is {@link Why#FAILED} and its last failure opened the circuit
   *     (which is why it was not retried); the cooldown left when {@link Why#COOLING}; else zero
   * @param retryDenied whether, when {@code why} is {@link Why#FAILED}, the target was not retried
   *     (again) because its retry budget had no token left (a retry of it was wanted and allowed by
   *     everything else); always false for the other reasons
   * @param waitTooLong when {@code why} is {@link Why#FAILED} and the target was not retried (again)
   *     because the wait before that retry was too long (a stated wait beyond the deadline or over
   *     {@code max-retry-after}, a backoff beyond the deadline): which wait, and what it was too
   *     long for; else null
   */
  record TargetReport(Target target, Why why, int calls, Failure failure, Duration openFor, boolean retryDenied,
      WaitTooLong waitTooLong) {

    public TargetReport {
      java.util.Objects.requireNonNull(target, "target");
      java.util.Objects.requireNonNull(why, "why");
      java.util.Objects.requireNonNull(openFor, "openFor");
      if ((why == Why.FAILED) != (failure != null)) {
        throw new IllegalArgumentException("a failure is reported exactly when the target failed");
      }
      if (retryDenied && why != Why.FAILED) {
        throw new IllegalArgumentException("only a target that failed can have had its retry denied");
      }
      if (waitTooLong != null && why != Why.FAILED) {
        throw new IllegalArgumentException("only a target that failed can have had a wait too long to retry it");
      }
    }

    /** A report of a target whose retries did not end for a wait too long. */
    public TargetReport(Target target, Why why, int calls, Failure failure, Duration openFor, boolean retryDenied) {
      this(target, why, calls, failure, openFor, retryDenied, null);
    }

    /** A report whose retry was not denied by the budget. */
    public TargetReport(Target target, Why why, int calls, Failure failure, Duration openFor) {
      this(target, why, calls, failure, openFor, false);
    }

    /** This report of a failed target, saying its retry was refused by its retry budget. */
    TargetReport withRetryDenied() {
      return new TargetReport(target, why, calls, failure, openFor, true, waitTooLong);
    }

    /** This report of a failed target, saying it was not retried because the wait before that was too long. */
    TargetReport withWaitTooLong(WaitTooLong wait) {
      return new TargetReport(target, why, calls, failure, openFor, retryDenied, wait);
    }

    static TargetReport of(Target target, Why why) {
      return new TargetReport(target, why, 0, null, Duration.ZERO);
    }
  }

  /** Why a target did not answer. */
  enum Why {
    /** The chain ended before reaching it (an earlier target's error, the budget, the deadline). */
    NOT_TRIED,
    /** Not tried: too little of the deadline was left. */
    DEADLINE_REACHED,
    /** Not tried: the retry budget had no token left. */
    BUDGET_EXHAUSTED,
    /** Skipped: its circuit breaker is OPEN. */
    CIRCUIT_OPEN,
    /** Skipped: its circuit breaker is HALF_OPEN with every trial slot taken. */
    TRIAL_IN_FLIGHT,
    /** Called, and its last call failed. */
    FAILED,
    /**
     * Skipped before the chain ran: cooling after a rate limit ({@code openFor} is the time left;
     * see {@code dev.levee.core.cooldown.RateLimitCooldowns}).
     */
    COOLING
  }
}
