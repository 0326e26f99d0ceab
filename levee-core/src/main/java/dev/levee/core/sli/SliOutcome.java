package dev.levee.core.sli;

import dev.levee.core.retry.FailureKind;

/** How one upstream call counts in a {@link SlidingWindow}. */
public enum SliOutcome {
  /** Answered. */
  SUCCESS,
  /** The target failed: 5xx, 529, timeout, connection failure, stream cut, bad credentials. */
  SERVER_ERROR,
  /** 429, including a reached spend limit. */
  RATE_LIMITED,
  /** The client's own error (400, 413, 422): recorded, but no failure of the target. */
  CLIENT_ERROR;

  /** The outcome of a failure of {@code kind}; null for a cancelled call, which is not recorded. */
  public static SliOutcome of(FailureKind kind) {
    return switch (kind) {
      case RATE_LIMITED, SPEND_LIMIT -> RATE_LIMITED;
      case CLIENT_ERROR -> CLIENT_ERROR;
      case CANCELLED -> null;
      case OVERLOADED, SERVER_ERROR, TIMEOUT, CONNECTION, CREDENTIALS -> SERVER_ERROR;
    };
  }
}
