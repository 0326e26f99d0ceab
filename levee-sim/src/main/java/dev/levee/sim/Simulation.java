package dev.levee.sim;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.Objects;

/**
 * The discrete-event loop: requests arrive at a fixed rate, each makes attempts against an
 * {@link Upstream} under a {@link ClientPolicy}, all on virtual time.
 *
 * <p>Request {@code i} arrives at {@code t = i / rate} seconds. Pending attempts and answers are
 * ordered by time, ties in insertion order (arrivals count as inserted first). Taking the
 * earliest attempt: the policy admits it (or the request is lost, rejected locally); it counts as
 * a call; the upstream answers. The answer arrives {@code successLatency} or {@code
 * failureLatency} seconds later — at once when that is zero, as in the published study. Then the
 * policy learns the outcome; a failed request whose last allowed attempt this was is lost;
 * otherwise the policy may deny the retry (lost, denied) or waits {@link
 * ClientPolicy#retryDelaySeconds} before the next attempt.
 *
 * <p>Event time is kept as a double count of seconds, exactly as in the study's JavaScript:
 * the study's table depends on it (with 0.05 s immediate retries, a request's fifth attempt and
 * the next arrival fall on the same instant only in exact arithmetic, and which goes first
 * changes the draws that follow). A {@link ManualClock}, when given, is advanced to each event's
 * time rounded to the nanosecond for the policies that read a ticker.
 *
 * <p>Allocation-free per event apart from what the policies allocate. Not thread-safe; runs are
 * independent, so separate runs may go on separate threads.
 */
public final class Simulation {

  /**
   * The shape of a run.
   *
   * @param requests requests to simulate (arrivals {@code 0 … requests − 1})
   * @param rate arrivals per second (> 0)
   * @param maxAttempts attempts allowed per request, the first included (>= 1)
   * @param successLatency seconds from a successful call to its answer (>= 0)
   * @param failureLatency seconds from a failed call to its answer (>= 0)
   * @param keepTimeline whether to keep per-second counts
   * @param firstCounted the first request the totals count; earlier ones only warm the policies up
   *     (the timeline shows every request)
   */
  public record Settings(
      int requests, double rate, int maxAttempts, double successLatency, double failureLatency, boolean keepTimeline,
      int firstCounted) {

    /** Settings that count every request. */
    public Settings(int requests, double rate, int maxAttempts, double successLatency, double failureLatency,
        boolean keepTimeline) {
      this(requests, rate, maxAttempts, successLatency, failureLatency, keepTimeline, 0);
    }

    public Settings {
      if (requests < 0) throw new IllegalArgumentException("requests must not be negative");
      if (!(rate > 0)) throw new IllegalArgumentException("rate must be positive, was " + rate);
      if (maxAttempts < 1) throw new IllegalArgumentException("max attempts must be at least 1");
      if (!(successLatency >= 0 && failureLatency >= 0)) throw new IllegalArgumentException("latency must not be negative");
      if (firstCounted < 0 || firstCounted > requests) throw new IllegalArgumentException("first counted request out of range");
    }

    /**
     * The number of arrivals {@code i / rate} that fall before {@code horizon} seconds.
     *
     * @throws IllegalArgumentException if the rate is not positive and finite, the horizon not
     *     finite and non-negative, or the count does not fit in an {@code int}
     */
    public static int requestsWithin(double rate, double horizon) {
      if (!(rate > 0 && rate < Double.POSITIVE_INFINITY)) {
        throw new IllegalArgumentException("the rate must be a positive number of requests per second, was " + rate);
      }
      if (!(horizon >= 0 && horizon < Double.POSITIVE_INFINITY)) {
        throw new IllegalArgumentException("the horizon must be a finite, non-negative number of seconds, was " + horizon);
      }
      long n = (long) Math.ceil(rate * horizon);
      while (n > 0 && (n - 1) / rate >= horizon) n--;
      while (n / rate < horizon) n++;
      if (n > Integer.MAX_VALUE - 1) throw new IllegalArgumentException("too many requests: " + n);
      return (int) n;
    }
  }

  private static final int ATTEMPT = 0;
  private static final int SUCCEEDED = 1;
  private static final int FAILED = 2;

  // Event lanes: answers come a constant latency after their call, so each kind arrives sorted;
  // retries after a fixed wait do too (jittered ones mostly fall back to the heap).
  private static final int SUCCESS_LANE = 0;
  private static final int FAILURE_LANE = 1;
  private static final int RETRY_LANE = 2;

  private final Settings settings;
  private final Upstream upstream;
  private final ClientPolicy policy;
  private final ManualClock clock;
  private final EventQueue queue;
  private final Timeline timeline;
  private final LatencyHistogram latency = new LatencyHistogram();
  private long clockNanos;

  private long calls;
  private long retries;
  private long successes;
  private long failedCalls;
  private long exhausted;
  private long denied;
  private long rejectedLocally;

  private Simulation(Settings settings, Upstream upstream, ClientPolicy policy, ManualClock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.upstream = Objects.requireNonNull(upstream, "upstream");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.clock = clock;
    this.queue = new EventQueue(settings.requests(), 3);
    this.timeline = settings.keepTimeline() ? new Timeline() : null;
  }

  /**
   * Runs one simulation to the end (every request succeeded or lost).
   *
   * @param clock the virtual clock the policy's ticker reads, or null when the policy reads none
   */
  public static RunStats run(Settings settings, Upstream upstream, ClientPolicy policy, ManualClock clock) {
    return new Simulation(settings, upstream, policy, clock).run();
  }

  private RunStats run() {
    int n = settings.requests();
    double rate = settings.rate();
    int next = 0;
    while (next < n || !queue.isEmpty()) {
      double time;
      int request;
      int code;
      Object ticket;
      double arrival = next < n ? next / rate : Double.POSITIVE_INFINITY;
      if (next < n && (queue.isEmpty() || arrival <= queue.topTime())) {
        time = arrival;
        request = next++;
        code = ATTEMPT;
        ticket = null;
        if (timeline != null) timeline.arrival(time);
      } else {
        time = queue.topTime();
        request = queue.topRequest();
        code = queue.topCode();
        ticket = queue.topTicket();
        queue.pop();
      }
      advanceClock(time);
      if (timeline != null) timeline.sampleBefore(time, policy);
      int attempt = code >>> 2;
      switch (code & 3) {
        case ATTEMPT -> attempt(time, request, attempt);
        case SUCCEEDED -> answer(time, request, attempt, ticket, true);
        default -> answer(time, request, attempt, ticket, false);
      }
    }
    if (timeline != null) timeline.finish(policy);
    return new RunStats(n - settings.firstCounted(), calls, retries, successes, failedCalls, exhausted, denied, rejectedLocally, latency, timeline);
  }

  private void attempt(double time, int request, int attempt) {
    boolean counted = request >= settings.firstCounted();
    Object ticket = policy.admit(attempt);
    if (ticket == null) {
      if (counted) rejectedLocally++;
      if (timeline != null) timeline.lost(time);
      return;
    }
    if (counted) {
      calls++;
      if (attempt > 0) retries++;
    }
    if (timeline != null) timeline.call(time);
    boolean ok = upstream.call(time);
    if (!ok) {
      if (counted) failedCalls++;
      if (timeline != null) timeline.failure(time);
    }
    double wait = ok ? settings.successLatency() : settings.failureLatency();
    if (wait == 0) {
      answer(time, request, attempt, ticket, ok);
    } else {
      queue.push(ok ? SUCCESS_LANE : FAILURE_LANE, time + wait, request, attempt << 2 | (ok ? SUCCEEDED : FAILED), ticket);
    }
  }

  private void answer(double time, int request, int attempt, Object ticket, boolean ok) {
    policy.onResponse(ticket, ok);
    boolean counted = request >= settings.firstCounted();
    if (ok) {
      if (counted) {
        successes++;
        latency.record(time - request / settings.rate());
      }
      if (timeline != null) timeline.success(time);
      return;
    }
    if (attempt + 1 >= settings.maxAttempts()) {
      if (counted) exhausted++;
      if (timeline != null) timeline.lost(time);
      return;
    }
    if (!policy.mayRetry()) {
      if (counted) denied++;
      if (timeline != null) timeline.lost(time);
      return;
    }
    queue.push(RETRY_LANE, time + policy.retryDelaySeconds(attempt), request, (attempt + 1) << 2 | ATTEMPT, null);
  }

  private void advanceClock(double time) {
    if (clock == null) {
      return;
    }
    long target = (long) Math.rint(time * 1e9);
    if (target > clockNanos) {
      clock.advance(Duration.ofNanos(target - clockNanos));
      clockNanos = target;
    }
  }
}
