package dev.levee.sim.study;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.route.Circuits;
import dev.levee.core.route.Cooling;
import dev.levee.core.route.ModelPrice;
import dev.levee.core.route.Pacing;
import dev.levee.core.route.Preference;
import dev.levee.core.route.PriceTable;
import dev.levee.core.route.RouteRequest;
import dev.levee.core.route.RouterStatistics;
import dev.levee.core.route.ScoringRouter;
import dev.levee.core.route.StatisticsConfig;
import dev.levee.core.route.TaskFitMatrix;
import dev.levee.core.route.TaskType;
import dev.levee.core.time.ManualClock;
import dev.levee.sim.LatencyHistogram;
import dev.levee.sim.Mulberry32;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A day of traffic on an alias of Opus, Sonnet and Haiku with an Opus brown-out, served once by
 * the fixed chain (Opus → Sonnet → Haiku) and once by the scoring router over the same targets,
 * both behind levee-core's circuit breakers. Compares loss, client-seen latency and cost, for the
 * whole day and for the brown-out alone.
 *
 * <p>The day: arrivals every {@code 1 / rate} s; each request draws a task type (uniform over the
 * four), 500–4,000 input and 200–1,000 output tokens, and asks for a 5 s latency budget,
 * balanced. Models: median latency Opus 2.5 s, Sonnet 1.2 s, Haiku 0.6 s (log-normal, σ 0.35),
 * each failing 0.5 % of calls (529 after 0.3 s); from {@code brownoutStart} to {@code brownoutEnd}
 * Opus fails {@code brownoutFailRate} of its calls and its successes are {@code brownoutSlowdown}
 * times slower. Prices: levee-core's default list prices (Opus 4.6 $5 / $25, Sonnet 4.6 $3 / $15,
 * Haiku 4.5 $1 / $5 per MTok); a failed call costs nothing. Each request tries its targets in
 * order, one attempt each (a breaker that rejects skips its target); it is lost when every
 * target fails or the attempts together exceed the 30 s deadline.
 *
 * <p>Simplification: a request's attempts are fed to the breakers and the router's statistics at
 * its arrival instant (requests do not overlap in flight). Draws come from two seeded mulberry32
 * streams, one for the requests (identical for both policies) and one for outcomes.
 *
 * @param seed the seed of both streams
 * @param rate requests per second
 * @param hours the day's length in hours
 * @param brownoutStart start of the brown-out, hours into the day
 * @param brownoutEnd end of the brown-out, hours into the day
 * @param brownoutFailRate the share of Opus calls that fail during the brown-out
 * @param brownoutSlowdown how many times slower Opus answers during the brown-out
 */
public record RoutingDayStudy(int seed, double rate, double hours, double brownoutStart, double brownoutEnd,
    double brownoutFailRate, double brownoutSlowdown) {

  /** The defaults: 2 requests/s for 24 h, Opus failing 60 % and 3× slower from 10:00 to 13:00. */
  public static RoutingDayStudy defaults() {
    return new RoutingDayStudy(20261201, 2, 24, 10, 13, 0.6, 3);
  }

  public static final Target OPUS = new Target("anthropic", "claude-opus-4-6");
  public static final Target SONNET = new Target("anthropic", "claude-sonnet-4-6");
  public static final Target HAIKU = new Target("anthropic", "claude-haiku-4-5");
  /** The alias's fixed chain. */
  public static final List<Target> CHAIN = List.of(OPUS, SONNET, HAIKU);
  private static final Map<Target, Double> MEDIAN_S = Map.of(OPUS, 2.5, SONNET, 1.2, HAIKU, 0.6);
  private static final double BASE_FAIL_RATE = 0.005;
  private static final double FAILURE_LATENCY_S = 0.3;
  private static final double DEADLINE_S = 30;
  private static final Duration BUDGET = Duration.ofSeconds(5);
  private static final Failure OVERLOADED = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded");

  public RoutingDayStudy {
    if (!(rate > 0 && rate <= 1000) || !(hours > 0 && hours <= 24 * 7)) {
      throw new IllegalArgumentException("rate must be within (0, 1000] per second and hours within (0, 168]");
    }
    if (!(brownoutStart >= 0 && brownoutEnd > brownoutStart && brownoutEnd <= hours)) {
      throw new IllegalArgumentException("the brown-out must satisfy 0 <= start < end <= hours");
    }
    if (!(brownoutFailRate >= 0 && brownoutFailRate <= 1) || !(brownoutSlowdown >= 1 && brownoutSlowdown <= 100)) {
      throw new IllegalArgumentException("brown-out fail rate must be within 0..1 and slowdown within 1..100");
    }
  }

  /** The policies compared. */
  public enum Policy {
    FIXED_CHAIN("fixed chain"),
    SCORE_ROUTING("score routing");

    private final String label;

    Policy(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /**
   * One policy over one span of the day.
   *
   * @param span {@code day} or {@code brown-out}
   * @param served requests served per model id
   */
  public record Row(Policy policy, String span, long requests, long lost, double p50, double p95, double attempts,
      double cost, Map<String, Long> served, double meanFit) {

    public double loss() {
      return requests == 0 ? 0 : (double) lost / requests;
    }

    /** The share of served requests that {@code target} answered. */
    public double share(Target target) {
      long total = served.values().stream().mapToLong(Long::longValue).sum();
      return total == 0 ? 0 : (double) served.getOrDefault(target.id(), 0L) / total;
    }
  }

  /** Runs both policies; two rows each (day, brown-out). */
  public List<Row> run() {
    List<Row> rows = new ArrayList<>();
    for (Policy policy : Policy.values()) {
      rows.addAll(run(policy));
    }
    return rows;
  }

  private List<Row> run(Policy policy) {
    ManualClock clock = new ManualClock();
    long epoch = clock.nanos();
    Breakers breakers = new Breakers(CircuitBreakerConfig.of(5, Duration.ofSeconds(10), Duration.ofSeconds(30)), clock,
        t -> { });
    RouterStatistics statistics = new RouterStatistics(StatisticsConfig.DEFAULT.withTypicalLatency(Map.of(
        OPUS.model(), Duration.ofMillis(3000), SONNET.model(), Duration.ofMillis(1200),
        HAIKU.model(), Duration.ofMillis(600))), clock);
    PriceTable prices = PriceTable.defaults();
    ScoringRouter router = new ScoringRouter(statistics, prices, TaskFitMatrix.defaults(), Circuits.of(breakers),
        Cooling.NONE, Pacing.NONE);
    Function<RouteRequest, List<Target>> order = policy == Policy.FIXED_CHAIN
        ? request -> CHAIN
        : request -> router.route(CHAIN, request).order();
    Mulberry32 requests = new Mulberry32(seed);
    Mulberry32 outcomes = new Mulberry32(seed ^ 0x5bd1e995);
    Tally day = new Tally();
    Tally brownout = new Tally();
    long count = (long) Math.floor(hours * 3600 * rate);
    for (long i = 0; i < count; i++) {
      double at = i / rate;
      long target = epoch + (long) (at * 1e9);
      clock.advance(Duration.ofNanos(target - clock.nanos()));
      TaskType task = TaskType.values()[requests.nextInt(4)];
      long input = 500 + requests.nextInt(3501);
      long output = 200 + requests.nextInt(801);
      RouteRequest request = new RouteRequest(task, input, BUDGET, Preference.BALANCED);
      boolean inBrownout = at >= brownoutStart * 3600 && at < brownoutEnd * 3600;
      Outcome outcome = serve(order.apply(request), inBrownout, breakers, statistics, outcomes);
      double cost = outcome.servedBy == null ? 0 : cost(prices.priceOf(outcome.servedBy.model()).orElseThrow(), input, output);
      double fit = outcome.servedBy == null ? 0 : TaskFitMatrix.defaults().fit(outcome.servedBy.model(), task);
      day.add(outcome, cost, fit);
      if (inBrownout) {
        brownout.add(outcome, cost, fit);
      }
    }
    return List.of(day.row(policy, "day"), brownout.row(policy, "brown-out"));
  }

  private record Outcome(Target servedBy, double latency, int attempts, boolean lost) {}

  private Outcome serve(List<Target> order, boolean inBrownout, Breakers breakers, RouterStatistics statistics,
      Mulberry32 random) {
    double elapsed = 0;
    int attempts = 0;
    for (Target target : order) {
      if (!(breakers.of(target).tryAcquire() instanceof CircuitBreaker.Admitted admitted)) {
        continue;
      }
      attempts++;
      boolean brown = inBrownout && target.equals(OPUS);
      double failRate = brown ? brownoutFailRate : BASE_FAIL_RATE;
      if (random.nextDouble() < failRate) {
        admitted.permit().failure();
        statistics.onFailure(target, OVERLOADED, Duration.ofMillis((long) (FAILURE_LATENCY_S * 1000)));
        elapsed += FAILURE_LATENCY_S;
        continue;
      }
      double latency = MEDIAN_S.get(target) * Math.exp(0.35 * random.nextGaussian()) * (brown ? brownoutSlowdown : 1);
      admitted.permit().success();
      statistics.onSuccess(target, Duration.ofNanos((long) (latency * 1e9)));
      elapsed += latency;
      return elapsed > DEADLINE_S ? new Outcome(null, elapsed, attempts, true) : new Outcome(target, elapsed, attempts, false);
    }
    return new Outcome(null, elapsed, attempts, true);
  }

  private static double cost(ModelPrice price, long input, long output) {
    return input / 1000.0 * price.inputPer1k() + output / 1000.0 * price.outputPer1k();
  }

  /** Sums of one span. Not thread-safe. */
  private static final class Tally {
    private long requests;
    private long lost;
    private long attempts;
    private double cost;
    private double fit;
    private final LatencyHistogram latency = new LatencyHistogram();
    private final Map<String, Long> served = new LinkedHashMap<>();

    Tally() {
      CHAIN.forEach(t -> served.put(t.id(), 0L));
    }

    void add(Outcome outcome, double cost, double fit) {
      requests++;
      attempts += outcome.attempts;
      if (outcome.lost) {
        lost++;
        return;
      }
      latency.record(outcome.latency);
      this.cost += cost;
      this.fit += fit;
      served.merge(outcome.servedBy.id(), 1L, Long::sum);
    }

    Row row(Policy policy, String span) {
      long servedCount = requests - lost;
      return new Row(policy, span, requests, lost, latency.percentile(0.5), latency.percentile(0.95),
          requests == 0 ? 0 : (double) attempts / requests, cost, Map.copyOf(served),
          servedCount == 0 ? 0 : fit / servedCount);
    }
  }
}
