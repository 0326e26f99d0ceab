package dev.levee.core.chain;

import java.time.Duration;
import java.util.Objects;

/**
 * When a request's first call is hedged: if it has not begun to answer after a delay (no response
 * head of a JSON call, no first content delta of a stream), the chain's next target is called too
 * and the first to answer wins ("The Tail at Scale", Dean and Barroso, CACM 2013: hedged requests
 * sent after the 95th-percentile expected latency).
 *
 * <p>The delay is either fixed ({@code hedge: { after: 2s }}) or the first target's measured
 * 95th-percentile time to first byte ({@code after: p95}), never below {@link #P95_FLOOR}; with
 * fewer than {@link #P95_MIN_CALLS} measured calls it is {@link #P95_UNMEASURED}. Immutable.
 *
 * @param after the fixed delay; ignored when {@code p95}
 * @param p95 whether the delay is the target's measured p95
 */
public record HedgePolicy(Duration after, boolean p95) {

  /** The shortest p95 delay: 50 ms (a hedge faster than that mostly doubles load). */
  public static final Duration P95_FLOOR = Duration.ofMillis(50);

  /** The p95 delay while too little is measured: 2 s. */
  public static final Duration P95_UNMEASURED = Duration.ofSeconds(2);

  /** Calls a p95 needs before it is trusted: 20. */
  public static final long P95_MIN_CALLS = 20;

  public HedgePolicy {
    Objects.requireNonNull(after, "after");
    if (!p95 && !after.isPositive()) {
      throw new IllegalArgumentException("a hedge delay must be positive, was " + after);
    }
  }

  /** Hedge after a fixed {@code delay} (> 0). */
  public static HedgePolicy after(Duration delay) {
    return new HedgePolicy(delay, false);
  }

  /** Hedge after the first target's measured p95 time to first byte. */
  public static HedgePolicy atP95() {
    return new HedgePolicy(P95_UNMEASURED, true);
  }

  /**
   * The delay for one request.
   *
   * @param calls the calls measured on the first target (recent window)
   * @param p95 their 95th-percentile time to first byte (JSON: to the answer; stream: to the first
   *     token)
   */
  public Duration delay(long calls, Duration p95) {
    if (!this.p95) {
      return after;
    }
    if (calls < P95_MIN_CALLS || p95 == null) {
      return P95_UNMEASURED;
    }
    return p95.compareTo(P95_FLOOR) < 0 ? P95_FLOOR : p95;
  }

  @Override
  public String toString() {
    return p95 ? "p95" : after.toMillis() + "ms";
  }
}
