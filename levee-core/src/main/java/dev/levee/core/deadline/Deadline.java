package dev.levee.core.deadline;

import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Objects;

/**
 * One deadline over everything done for a request: attempts, backoff waits and fallbacks.
 *
 * <p>An attempt runs with {@code min(attemptTimeout, remaining())}; an attempt or a wait that
 * cannot fit in the time left is not started. Immutable and thread-safe.
 */
public final class Deadline {

  /** The default time budget of one client request, every attempt and wait included: 30 s. */
  public static final Duration DEFAULT_BUDGET = Duration.ofSeconds(30);

  private final Ticker ticker;
  private final long expiresAt;

  private Deadline(Ticker ticker, long expiresAt) {
    this.ticker = ticker;
    this.expiresAt = expiresAt;
  }

  /** A deadline {@code budget} from now. */
  public static Deadline after(Duration budget, Ticker ticker) {
    Objects.requireNonNull(ticker, "ticker");
    return new Deadline(ticker, ticker.nanos() + budget.toNanos());
  }

  /** Time left, never negative. */
  public Duration remaining() {
    long left = expiresAt - ticker.nanos();
    return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
  }

  public boolean expired() {
    return expiresAt - ticker.nanos() <= 0;
  }

  /** The timeout for the next attempt: {@code min(attemptTimeout, remaining())}. */
  public Duration attemptTimeout(Duration attemptTimeout) {
    Duration left = remaining();
    return attemptTimeout.compareTo(left) < 0 ? attemptTimeout : left;
  }

  /**
   * Whether a wait of {@code wait} followed by at least {@code minimum} of work ends in time: the
   * time left after the wait is at least {@code minimum}, and more than zero.
   */
  public boolean fits(Duration wait, Duration minimum) {
    Duration afterWait = remaining().minus(wait);
    return afterWait.isPositive() && afterWait.compareTo(minimum) >= 0;
  }

  @Override
  public String toString() {
    return "Deadline[" + remaining().toMillis() + " ms left]";
  }
}
