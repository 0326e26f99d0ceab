package dev.levee.sim;

/**
 * An upstream with finite capacity, so load feeds back: the more calls it receives, the more of
 * them fail.
 *
 * <p>Time is cut into whole seconds. In second {@code s} the upstream can serve {@code
 * capacity(s) − rejectCost · rejected(s − 1)} calls: the first that many calls of the second
 * succeed, every later call of that second fails at once with 529 {@code overloaded_error}.
 * {@code capacity(s)} is {@code capacity}, except {@code triggerCapacity} inside the trigger
 * {@code [triggerStart, triggerEnd)} — a temporary capacity drop.
 *
 * <p>{@code rejectCost} is the work a rejection costs, as a fraction of a served call
 * (connections, TLS, authentication, the 529 itself), paid out of the next second's capacity.
 * It is what lets overload outlive its trigger. With {@code rejectCost = 0} and fewer than
 * {@code capacity} requests a second, no retry policy with a bounded number of attempts can stay
 * overloaded: served calls are successes, and successes cannot outnumber requests for long. With
 * {@code rejectCost > 0} a retry storm of {@code A} calls a second keeps every call failing once
 * {@code rejectCost · A ≥ capacity}: with at most {@code m} attempts per request at {@code λ}
 * requests a second, that is {@code rejectCost · m · λ ≥ capacity} — a metastable failure.
 *
 * <p>Not thread-safe; one run owns one upstream.
 */
public final class CapacityUpstream implements Upstream {

  private final double capacity;
  private final double triggerCapacity;
  private final double triggerStart;
  private final double triggerEnd;
  private final double rejectCost;

  private long second = Long.MIN_VALUE;
  private long served;
  private long rejected;
  private long rejectedBefore;

  /**
   * @param capacity calls served per second in normal times (> 0)
   * @param triggerCapacity calls served per second during the trigger (>= 0)
   * @param triggerStart start of the capacity drop, in seconds
   * @param triggerEnd end of the capacity drop, in seconds
   * @param rejectCost capacity one rejection costs the next second, in served calls ({@code [0, 1]})
   */
  public CapacityUpstream(
      double capacity, double triggerCapacity, double triggerStart, double triggerEnd, double rejectCost) {
    if (!(capacity > 0)) throw new IllegalArgumentException("capacity must be positive, was " + capacity);
    if (!(triggerCapacity >= 0)) throw new IllegalArgumentException("trigger capacity must not be negative");
    if (!(triggerEnd >= triggerStart)) throw new IllegalArgumentException("trigger must end after it starts");
    if (!(rejectCost >= 0 && rejectCost <= 1)) throw new IllegalArgumentException("reject cost must be in [0, 1]");
    this.capacity = capacity;
    this.triggerCapacity = triggerCapacity;
    this.triggerStart = triggerStart;
    this.triggerEnd = triggerEnd;
    this.rejectCost = rejectCost;
  }

  /** The nominal capacity at {@code time}, in calls per second (before rejection costs). */
  public double capacityAt(double time) {
    return time >= triggerStart && time < triggerEnd ? triggerCapacity : capacity;
  }

  @Override
  public boolean call(double time) {
    long s = (long) Math.floor(time);
    if (s != second) {
      rejectedBefore = s == second + 1 ? rejected : 0;
      second = s;
      served = 0;
      rejected = 0;
    }
    if (served + 1 <= capacityAt(time) - rejectCost * rejectedBefore) {
      served++;
      return true;
    }
    rejected++;
    return false;
  }
}
