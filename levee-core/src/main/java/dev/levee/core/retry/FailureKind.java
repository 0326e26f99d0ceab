package dev.levee.core.retry;

/**
 * What a failed attempt means, with the rules of DESIGN.md's failure taxonomy.
 *
 * <p>Each kind says whether the same target may be tried again, whether the next target of a
 * fallback chain may be tried, and whether the failure counts against the target's circuit
 * breaker. An upstream {@code x-should-retry} header overrides {@link #retrySameTarget()} (see
 * {@link Failure#mayRetrySameTarget()}).
 */
public enum FailureKind {
  /** 429 {@code rate_limit_error}: retry after the stated wait if it fits the deadline. */
  RATE_LIMITED(true, true, true),
  /** 529 or in-band {@code overloaded_error}: retry with wider jitter. */
  OVERLOADED(true, true, true),
  /** 500, 502, 503, 504 {@code api_error}, or an in-band {@code api_error}. */
  SERVER_ERROR(true, true, true),
  /** Attempt timeout, time to first token exceeded, or a stream that stalled. */
  TIMEOUT(true, true, true),
  /** Connection refused or reset, or a stream cut before its end. */
  CONNECTION(true, true, true),
  /** 400 {@code invalid_request_error}, 404, 413, 422: the request itself is wrong. */
  CLIENT_ERROR(false, false, false),
  /** 401, 403: never again on the same key, but another deployment may accept it. */
  CREDENTIALS(false, true, true),
  /** 429 without retry-after whose message says the spend limit was reached. */
  SPEND_LIMIT(false, true, true),
  /** The client went away; nothing more is done for it. */
  CANCELLED(false, false, false);

  private final boolean retrySameTarget;
  private final boolean tryNextTarget;
  private final boolean countsForBreaker;

  FailureKind(boolean retrySameTarget, boolean tryNextTarget, boolean countsForBreaker) {
    this.retrySameTarget = retrySameTarget;
    this.tryNextTarget = tryNextTarget;
    this.countsForBreaker = countsForBreaker;
  }

  /** Whether the same target may be tried again, before any {@code x-should-retry} override. */
  public boolean retrySameTarget() {
    return retrySameTarget;
  }

  /** Whether the next target of a fallback chain may be tried. */
  public boolean tryNextTarget() {
    return tryNextTarget;
  }

  /** Whether the failure counts against the target's circuit breaker. */
  public boolean countsForBreaker() {
    return countsForBreaker;
  }

  /** Whether this failure must reach the client at once, with no retry and no fallback. */
  public boolean isFinal() {
    return !retrySameTarget && !tryNextTarget;
  }
}
