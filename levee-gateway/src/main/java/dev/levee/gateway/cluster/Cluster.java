package dev.levee.gateway.cluster;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.Gate;
import dev.levee.core.breaker.Transition;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.RetryBudgets;
import dev.levee.core.chain.Target;
import dev.levee.core.cooldown.RateLimitCooldowns;
import dev.levee.core.route.RouterStatistics;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The soft state this replica shares with the others of its cluster through Redis: breakers and
 * rate-limit cooldowns per target, retry budgets, tier decisions per feature, router statistics.
 *
 * <p>Built once at start-up when {@code cluster.redis} is configured; the request path asks it for
 * the shared counterpart of each local policy ({@link #breaker}, {@link #budget},
 * {@link #cooldowns()}, {@link #tiers()}) and {@code /health} shows {@link #status()}. Every shared
 * operation falls back to this replica's local state when Redis is away or slower than
 * {@link ClusterConfig#commandTimeout()}, and the replica rejoins by itself. Thread-safe.
 */
public final class Cluster implements AutoCloseable {

  /** The retry budget shared by targets that are not configured (a target's id always holds a '/'). */
  public static final String OVERFLOW_BUDGET = "retry:" + RetryBudgets.OVERFLOW;

  private static final Duration FLUSH_EVERY = Duration.ofMillis(100);

  private final RedisLink link;
  private final Ticker ticker;
  private final String replica;
  private final SharedView<SharedBreaker.View> breakerViews;
  private final SharedCooldowns cooldowns;
  private final SharedTiers tiers;
  private final Map<String, SharedBreaker> breakers = new ConcurrentHashMap<>(); // by name: breaker(String, …) only
  private final Set<SharedBreaker> unwritten = ConcurrentHashMap.newKeySet(); // a trial outcome to write
  private final Map<String, SharedRetryBudget> budgets = new ConcurrentHashMap<>();
  private final List<Consumer<Transition>> breakerCloses = new CopyOnWriteArrayList<>();
  // the shared breakers of the gates, weakly: each lives as long as the gate Breakers holds
  private final Cache<String, SharedBreaker> live = Caffeine.newBuilder().weakValues().build();
  private final ScheduledExecutorService flusher;

  /**
   * Connects in the background (returns at once; state is local until Redis answers).
   *
   * @param config an enabled cluster config
   * @param ticker monotonic time
   * @param tierLease how long a tier evaluator keeps a feature without renewing; a few times the
   *     tier evaluation period (e.g. 3 × {@code tiers.evaluate-every})
   * @throws IllegalArgumentException when {@code config} is off
   */
  public Cluster(ClusterConfig config, Ticker ticker, Duration tierLease) {
    this.link = new RedisLink(config, ticker);
    this.ticker = ticker;
    this.replica = config.name() + "-" + UUID.randomUUID();
    this.breakerViews = new SharedView<>(link, ticker);
    this.cooldowns = new SharedCooldowns(link, new SharedView<>(link, ticker), ticker);
    this.tiers = new SharedTiers(link, new SharedView<>(link, ticker), ticker, replica, tierLease);
    link.onInvalidation(this::closedElsewhere);
    this.flusher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "levee-cluster-flush-" + config.name());
      thread.setDaemon(true);
      return thread;
    });
    flusher.scheduleWithFixedDelay(() -> {
          budgets.values().forEach(SharedRetryBudget::flush);
          unwritten.forEach(SharedBreaker::writePending);
          tiers.writePending();
        },
        FLUSH_EVERY.toMillis(), FLUSH_EVERY.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * The shared breaker named {@code target}, kept for the cluster's life (one per name; the first
   * call's settings win): for a fixed set of names. The gateway's breakers, whose targets clients
   * can name, come from {@link #gates} instead and live in its bounded {@link Breakers} table.
   *
   * @param trialLease how long the half-open trial may hold its slot (the attempt timeout)
   */
  public SharedBreaker breaker(String target, CircuitBreakerConfig config, Duration trialLease) {
    return breakers.computeIfAbsent(target,
        t -> heard(new SharedBreaker(t, config, link, breakerViews, unwritten, ticker, trialLease)));
  }

  /**
   * Hears every close of a shared breaker (HALF_OPEN to CLOSED) on this replica, whichever replica's
   * trial closed it, once per close ({@link SharedBreaker#onClose}): the gateway's tier board starts
   * the target's SLI and /health windows afresh, as a local breaker's close does. Register at
   * start-up, before requests. Listeners run on the thread that learns of the close — a request's,
   * or the Redis client's — so they must be quick and never block.
   */
  public void onBreakerClosed(Consumer<Transition> listener) {
    breakerCloses.add(java.util.Objects.requireNonNull(listener, "listener"));
  }

  private SharedBreaker heard(SharedBreaker breaker) {
    breaker.onClose(close -> breakerCloses.forEach(l -> l.accept(close)));
    return breaker;
  }

  /** A close published by any replica ({@code closed:<epoch>:<target>}); other messages are not ours. */
  private void closedElsewhere(String message) {
    if (!message.startsWith(SharedBreaker.CLOSE_MESSAGE)) {
      return;
    }
    int colon = message.indexOf(':', SharedBreaker.CLOSE_MESSAGE.length());
    if (colon < 0) {
      return;
    }
    String target = message.substring(colon + 1);
    SharedBreaker breaker = breakers.get(target);
    if (breaker == null) {
      breaker = live.getIfPresent(target);
    }
    if (breaker == null) {
      return; // this replica holds no breaker of the target: it has no failures of it to forget
    }
    try {
      breaker.closed(Long.parseLong(message, SharedBreaker.CLOSE_MESSAGE.length(), colon, 10), "trial calls succeeded (shared)");
    } catch (NumberFormatException e) {
      // not a close message of this release
    }
  }

  /**
   * Gates for the fallback chain ({@link Breakers#shareThrough}): makes, for each local breaker the
   * table holds, the target's shared breaker around it, as a gate. The cluster keeps no strong table
   * of them: each lives as long as its local breaker in {@link Breakers} (bounded; client-named
   * targets evicted when idle), and a target whose breaker was evicted gets a new shared breaker
   * around its new local one, which reads the circuit from Redis as every replica does. A weak view
   * by target lets a close published elsewhere reach the live one.
   *
   * @param trialLease how long the half-open trial may hold its slot (the attempt timeout)
   */
  public BiFunction<Target, CircuitBreaker, Gate> gates(Duration trialLease) {
    return (target, local) -> {
      SharedBreaker shared = heard(new SharedBreaker(target.id(), local, link, breakerViews, unwritten, ticker, trialLease));
      live.put(target.id(), shared);
      return new SharedGate(shared);
    };
  }

  /** Shared breakers kept by name ({@link #breaker(String, CircuitBreakerConfig, Duration)}): tests. */
  int namedBreakers() {
    return breakers.size();
  }

  /** The cooldowns as levee-core's {@link RateLimitCooldowns} shares them ({@link RateLimitCooldowns#shareThrough}). */
  public RateLimitCooldowns.Sharing cooldownSharing() {
    return new RateLimitCooldowns.Sharing() {
      @Override
      public void coolFor(Target target, Duration stated) {
        cooldowns.coolDown(target.id(), stated);
      }

      @Override
      public Duration remaining(Target target) {
        return cooldowns.remaining(target.id());
      }
    };
  }

  /**
   * The shared retry budget named {@code name} (one per name; the first call's settings win), with a
   * lease of {@code max / 20} whole tokens, at least 1 and at most 5 (a budget under 40 has none).
   */
  public SharedRetryBudget budget(String name, double max, double ratio) {
    int lease = (int) Math.max(1, Math.min(5, Math.floor(max / 20)));
    return budget(name, max, ratio, lease);
  }

  /**
   * The retry budgets of the fallback chain, shared: a bucket named {@code retry:upstream/model}
   * for each configured target and one named {@value #OVERFLOW_BUDGET} for every other target
   * (Redis keys {@code budget:{retry:upstream/model}} and {@code budget:{retry:overflow}}: as many
   * keys as configured targets, plus one), each of {@code max} tokens earning {@code ratio} per
   * success.
   */
  public RetryBudgets budgets(Collection<Target> configured, double max, double ratio) {
    return new RetryBudgets(configured, target -> budget("retry:" + target.id(), max, ratio),
        budget(OVERFLOW_BUDGET, max, ratio));
  }

  /** The shared retry budget named {@code name} with an explicit lease size (at least 1). */
  public SharedRetryBudget budget(String name, double max, double ratio, int leaseSize) {
    return budgets.computeIfAbsent(name, n -> new SharedRetryBudget(n, max, ratio, leaseSize, link, ticker));
  }

  /**
   * Shares {@code statistics} with the other replicas: publishes its readings every {@link
   * SharedRouterStatistics#PUBLISH_EVERY} and returns the merge to pass to {@link
   * RouterStatistics#shareThrough}. Call once per statistics.
   *
   * @param wall wall-clock time, to date the published readings
   */
  public SharedRouterStatistics routerStatistics(RouterStatistics statistics, InstantSource wall) {
    SharedRouterStatistics shared = new SharedRouterStatistics(statistics, link, new SharedView<>(link, ticker), wall,
        replica);
    long every = SharedRouterStatistics.PUBLISH_EVERY.toMillis();
    flusher.scheduleWithFixedDelay(shared::publish, every, every, TimeUnit.MILLISECONDS);
    return shared;
  }

  /** Rate-limit cooldowns per target. */
  public SharedCooldowns cooldowns() {
    return cooldowns;
  }

  /** Tier decisions per feature. */
  public SharedTiers tiers() {
    return tiers;
  }

  /**
   * The shared answer cache ({@code cache.store: redis}), behind the local one.
   *
   * @param maxStaleness the local cache's {@code cache.max-staleness}
   */
  public SharedResponseCache responseCache(Duration maxStaleness) {
    return new SharedResponseCache(link, ticker, maxStaleness, SharedResponseCache.DEFAULT_MAX_ENTRY_BYTES);
  }

  /** The status of a replica without a {@code cluster:} section: OFF. */
  public static ClusterStatus off() {
    return new ClusterStatus(ClusterStatus.Mode.OFF, "", "", 0, 0);
  }

  /** SHARED or LOCAL, for {@code /health}; see also {@link RedisLink#bindTo}. */
  public ClusterStatus status() {
    return link.status();
  }

  /** This replica's unique id in the cluster. */
  public String replica() {
    return replica;
  }

  /** The link to Redis (metrics binding, start-up wait). */
  public RedisLink link() {
    return link;
  }

  @Override
  public void close() {
    flusher.shutdownNow();
    budgets.values().forEach(SharedRetryBudget::flush);
    link.close();
  }
}
