package dev.levee.bench;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.cluster.Cluster;
import dev.levee.gateway.cluster.ClusterConfig;
import dev.levee.gateway.cluster.SharedBreaker;
import dev.levee.gateway.cluster.SharedRetryBudget;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;

/**
 * What sharing state through Redis costs and how fast it spreads, measured in one run against the
 * Redis at {@code redis://127.0.0.1:6379} (or the URI given as the first argument), with the
 * production defaults (30 ms command timeout, 50 ms view TTL):
 *
 * <ol>
 *   <li>the time per operation of each shared class against its local counterpart (levee-core
 *       or a map), and their ratio;
 *   <li>the propagation time of an event on replica A (tier forced, breaker opened, cooldown
 *       started) until replicas B and C see it, as a distribution.
 * </ol>
 *
 * <p>Three replicas are three {@link Cluster}s in this JVM, each with its own connections. Keys live
 * under a fresh cluster name and are left to expire (no FLUSHALL). A benchmark, not a test.
 *
 * <p>Run: {@code java -cp "levee-bench/target/levee-bench.jar:levee-bench/target/lib/*"
 * dev.levee.bench.ClusterCost}.
 */
public final class ClusterCost {

  private static final int OPS = 20_000;
  private static final int EVENTS = 200;

  private ClusterCost() {}

  public static void main(String[] args) throws Exception {
    String redis = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
    ClusterConfig config = ClusterConfig.of(redis, "bench-" + UUID.randomUUID().toString().substring(0, 8));
    Ticker ticker = SystemClock.ticker();
    try (Cluster a = new Cluster(config, ticker, Duration.ofSeconds(15));
        Cluster b = new Cluster(config, ticker, Duration.ofSeconds(15));
        Cluster c = new Cluster(config, ticker, Duration.ofSeconds(15))) {
      for (Cluster replica : List.of(a, b, c)) {
        if (!replica.link().awaitShared(Duration.ofSeconds(5))) {
          throw new IllegalStateException("Redis did not answer at " + redis + ": " + replica.status());
        }
      }
      System.out.printf(Locale.ROOT, "%s, %d ops per row, one run%n%n", config, OPS);
      costs(a, ticker);
      System.out.println();
      propagation(a, b, c);
      System.out.printf(Locale.ROOT, "%nlocal answers during the run (should be 0): %d%n",
          a.status().localAnswers() + b.status().localAnswers() + c.status().localAnswers());
    }
  }

  private static void costs(Cluster shared, Ticker ticker) {
    System.out.println("operation                                   local µs/op   shared µs/op (p50 / p99)   ratio");
    CircuitBreakerConfig never = CircuitBreakerConfig.of(1_000_000, Duration.ofMillis(1), Duration.ofSeconds(30));
    CircuitBreaker localBreaker = new CircuitBreaker("local", never, ticker);
    SharedBreaker sharedBreaker = shared.breaker("bench/admit", never, Duration.ofSeconds(10));
    row("breaker admit + success (CLOSED)",
        () -> ((CircuitBreaker.Admitted) localBreaker.tryAcquire()).permit().success(),
        () -> ((SharedBreaker.Admitted) sharedBreaker.tryAcquire()).permit().success());
    row("breaker admit + failure (counted)",
        () -> ((CircuitBreaker.Admitted) localBreaker.tryAcquire()).permit().failure(),
        () -> ((SharedBreaker.Admitted) sharedBreaker.tryAcquire()).permit().failure());
    RetryBudget localBudget = new RetryBudget(1e12, 0);
    SharedRetryBudget sharedBudget = shared.budget("bench", 1e12, 0, 1);
    row("retry budget: spend a token (no lease)", localBudget::tryAcquire, sharedBudget::tryAcquire);
    SharedRetryBudget leasedBudget = shared.budget("bench-leased", 1e12, 0, 5);
    row("retry budget: spend a token (lease of 5)", localBudget::tryAcquire, leasedBudget::tryAcquire);
    row("retry budget: record a success", localBudget::onSuccess, sharedBudget::onSuccess);
    Map<String, Long> localCooldowns = new ConcurrentHashMap<>();
    row("cooldown: time left (read)",
        () -> localCooldowns.getOrDefault("bench/target", 0L),
        () -> shared.cooldowns().remaining("bench/target"));
    row("cooldown: start (max rule)",
        () -> localCooldowns.merge("bench/target", ticker.nanos() + 1_000_000_000L, Math::max),
        () -> shared.cooldowns().coolDown("bench/target", Duration.ofSeconds(1)));
    Map<String, Tier> localTiers = new ConcurrentHashMap<>();
    row("tier: current (read)", () -> localTiers.getOrDefault("chat", Tier.T0), () -> shared.tiers().current("chat"));
    row("one successful request (4 operations)", () -> {
      localTiers.getOrDefault("chat", Tier.T0);
      localCooldowns.getOrDefault("bench/target", 0L);
      ((CircuitBreaker.Admitted) localBreaker.tryAcquire()).permit().success();
      localBudget.onSuccess();
    }, () -> {
      shared.tiers().current("chat");
      shared.cooldowns().remaining("bench/target");
      ((SharedBreaker.Admitted) sharedBreaker.tryAcquire()).permit().success();
      sharedBudget.onSuccess();
    });
  }

  private static void row(String name, Runnable local, Runnable shared) {
    for (int i = 0; i < OPS / 4; i++) { // warm-up
      local.run();
      shared.run();
    }
    long start = System.nanoTime();
    for (int i = 0; i < OPS; i++) {
      local.run();
    }
    double localMicros = (System.nanoTime() - start) / 1e3 / OPS;
    Histogram histogram = new Histogram(3);
    start = System.nanoTime();
    for (int i = 0; i < OPS; i++) {
      long one = System.nanoTime();
      shared.run();
      histogram.recordValue(Math.max(1, System.nanoTime() - one));
    }
    double sharedMicros = (System.nanoTime() - start) / 1e3 / OPS;
    System.out.printf(Locale.ROOT, "%-42s %10.3f %12.3f (%7.1f / %7.1f) %9.0f×%n", name, localMicros, sharedMicros,
        histogram.getValueAtPercentile(50) / 1e3, histogram.getValueAtPercentile(99) / 1e3, sharedMicros / localMicros);
  }

  private static void propagation(Cluster a, Cluster b, Cluster c) throws InterruptedException {
    Histogram tiers = new Histogram(3);
    Histogram breakers = new Histogram(3);
    Histogram cooldowns = new Histogram(3);
    CircuitBreakerConfig opensAtOnce = CircuitBreakerConfig.of(1, Duration.ofSeconds(30), Duration.ofSeconds(60));
    for (int i = 0; i < EVENTS; i++) {
      Tier tier = i % 2 == 0 ? Tier.T2 : Tier.T1;
      String target = "bench/event-" + i;
      for (Cluster replica : List.of(b, c)) { // the replicas hold a fresh local copy of the old state
        replica.tiers().current("chat");
        replica.breaker(target, opensAtOnce, Duration.ofSeconds(10)).state();
        replica.cooldowns().remaining(target);
      }
      long t0 = System.nanoTime();
      a.tiers().force("chat", tier, Duration.ofMinutes(5));
      record(tiers, t0, () -> b.tiers().current("chat") == tier && c.tiers().current("chat") == tier);

      t0 = System.nanoTime();
      ((SharedBreaker.Admitted) a.breaker(target, opensAtOnce, Duration.ofSeconds(10)).tryAcquire()).permit().failure();
      record(breakers, t0, () -> b.breaker(target, opensAtOnce, null).state() == CircuitState.OPEN
          && c.breaker(target, opensAtOnce, null).state() == CircuitState.OPEN);

      t0 = System.nanoTime();
      a.cooldowns().coolDown(target, Duration.ofSeconds(30));
      record(cooldowns, t0, () -> b.cooldowns().remaining(target).isPositive() && c.cooldowns().remaining(target).isPositive());
    }
    System.out.printf(Locale.ROOT, "propagation, event on A until both B and C see it (%d events each), ms:%n", EVENTS);
    System.out.println("event               p50     p90     p99     max");
    print("tier forced", tiers);
    print("breaker opened", breakers);
    print("cooldown started", cooldowns);
  }

  private static void record(Histogram histogram, long t0, BooleanSupplier seen) {
    while (!seen.getAsBoolean()) {
      LockSupport.parkNanos(20_000);
    }
    histogram.recordValue(Math.max(1, System.nanoTime() - t0));
  }

  private static void print(String name, Histogram h) {
    System.out.printf(Locale.ROOT, "%-17s %7.2f %7.2f %7.2f %7.2f%n", name, h.getValueAtPercentile(50) / 1e6,
        h.getValueAtPercentile(90) / 1e6, h.getValueAtPercentile(99) / 1e6, h.getMaxValue() / 1e6);
  }
}
