package dev.levee.core.chain;

import java.time.Duration;
import java.util.Objects;

/**
 * Why a {@link FallbackChain} did not retry a target whose failure allowed a retry, with {@code
 * max-retries} not yet spent: the wait before that retry was too long. The step that ends the
 * target's calls carries it ({@link AttemptRecord#waitTooLong()}), as does the target's report
 * ({@link ChainResult.TargetReport#waitTooLong()}); the gateway words it in {@code x-levee-reason}
 * ({@code "then not retried: …"}). Values, thread-safe.
 */
public sealed interface WaitTooLong {

  /**
   * The upstream stated a wait ({@code retry-after}) within {@code max-retry-after} that, jittered
   * and followed by {@code min-attempt-time}, does not fit in what the deadline had left. A {@link
   * AttemptRecord.Step#DEADLINE} step.
   *
   * @param stated the wait the upstream stated, before Levee's jitter
   * @param needed the wait with its jitter, plus {@code min-attempt-time}: longer than {@code left}
   * @param left the time the deadline had left when the chain gave up
   */
  record StatedBeyondDeadline(Duration stated, Duration needed, Duration left) implements WaitTooLong {
    public StatedBeyondDeadline {
      Objects.requireNonNull(stated, "stated");
      Objects.requireNonNull(needed, "needed");
      Objects.requireNonNull(left, "left");
    }
  }

  /**
   * The upstream stated a wait longer than {@code max-retry-after}: never sat out, whatever the
   * deadline. An {@link AttemptRecord.Step#OVER_MAX_RETRY_AFTER} step.
   *
   * @param stated the wait the upstream stated
   * @param maxRetryAfter the policy's {@code max-retry-after}, shorter than {@code stated}
   */
  record StatedOverMaxRetryAfter(Duration stated, Duration maxRetryAfter) implements WaitTooLong {
    public StatedOverMaxRetryAfter {
      if (stated.compareTo(maxRetryAfter) <= 0) {
        throw new IllegalArgumentException("a stated wait of " + stated + " is not over " + maxRetryAfter);
      }
    }
  }

  /**
   * The failure stated no wait, and the full-jitter backoff drawn for the retry followed by {@code
   * min-attempt-time} does not fit in what the deadline had left. A {@link
   * AttemptRecord.Step#DEADLINE} step.
   *
   * @param backoff the wait drawn: one draw of the jitter, so another request's may have fit
   * @param minAttemptTime the least time left an attempt is started with ({@code min-attempt-time})
   * @param left the time the deadline had left when the chain gave up
   */
  record BackoffBeyondDeadline(Duration backoff, Duration minAttemptTime, Duration left) implements WaitTooLong {
    public BackoffBeyondDeadline {
      Objects.requireNonNull(backoff, "backoff");
      Objects.requireNonNull(minAttemptTime, "minAttemptTime");
      Objects.requireNonNull(left, "left");
    }
  }
}
