package dev.levee.bench;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.route.Circuits;
import dev.levee.core.route.Cooling;
import dev.levee.core.route.PriceTable;
import dev.levee.core.route.Preference;
import dev.levee.core.route.RateLimitReading;
import dev.levee.core.route.RateLimits;
import dev.levee.core.route.RouteDecision;
import dev.levee.core.route.RouteRequest;
import dev.levee.core.route.RouterStatistics;
import dev.levee.core.route.ScoringRouter;
import dev.levee.core.route.StatisticsConfig;
import dev.levee.core.route.TaskFitMatrix;
import dev.levee.core.route.TaskType;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: what the scoring router costs per request, for an alias of three targets (Opus, Sonnet,
 * Haiku) with real breakers, pacing state and statistics holding 1,000 measured outcomes each.
 *
 * <ul>
 *   <li>{@code route}: one decision while the statistics are unchanged (p95s memoized);
 *   <li>{@code recordThenRoute}: one outcome recorded, then one decision: the p95 of the target
 *       just fed is recomputed from its histogram, as on a gateway where every request feeds one;
 *   <li>{@code fixedChain}: the fixed chain's cost (a copy of the list), for the ratio.
 * </ul>
 *
 * <p>Run: {@code java -jar levee-bench/target/levee-bench.jar RouterCost}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RouterCost {

  private static final Target OPUS = new Target("anthropic", "claude-opus-4-6");
  private static final Target SONNET = new Target("anthropic", "claude-sonnet-4-6");
  private static final Target HAIKU = new Target("anthropic", "claude-haiku-4-5");
  private static final List<Target> CHAIN = List.of(OPUS, SONNET, HAIKU);
  private static final Failure OVERLOADED = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded");

  private final RouteRequest request = new RouteRequest(TaskType.CODE, 2000, Duration.ofSeconds(5), Preference.BALANCED);
  private final SplittableRandom random = new SplittableRandom(7);
  private RouterStatistics statistics;
  private ScoringRouter router;
  private int next;

  @Setup
  public void setUp() {
    Ticker ticker = SystemClock.ticker();
    statistics = new RouterStatistics(StatisticsConfig.DEFAULT, ticker);
    Breakers breakers = new Breakers(CircuitBreakerConfig.of(5, Duration.ofSeconds(30), Duration.ofSeconds(30)), ticker,
        t -> { });
    RateLimits limits = new RateLimits(ticker);
    for (Target target : CHAIN) {
      for (int i = 0; i < 1000; i++) {
        feed(target);
      }
      limits.observe(target, new RateLimitReading(Optional.of(new RateLimitReading.Bucket(4000, Duration.ofSeconds(60))),
          Optional.empty(), Optional.of(new RateLimitReading.Bucket(400_000, Duration.ofSeconds(60))), Optional.empty()));
    }
    router = new ScoringRouter(statistics, PriceTable.defaults(), TaskFitMatrix.defaults(), Circuits.of(breakers),
        Cooling.NONE, limits);
  }

  private void feed(Target target) {
    if (random.nextInt(100) < 3) {
      statistics.onFailure(target, OVERLOADED, Duration.ofMillis(50));
    } else {
      statistics.onSuccess(target, Duration.ofMillis(300 + random.nextInt(3000)));
    }
  }

  @Benchmark
  public RouteDecision route() {
    return router.route(CHAIN, request);
  }

  @Benchmark
  public RouteDecision recordThenRoute() {
    feed(CHAIN.get(next++ % CHAIN.size()));
    return router.route(CHAIN, request);
  }

  @Benchmark
  public List<Target> fixedChain() {
    return new ArrayList<>(CHAIN);
  }
}
