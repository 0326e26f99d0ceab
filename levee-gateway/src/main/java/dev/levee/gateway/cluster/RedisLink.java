package dev.levee.gateway.cluster;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Permit;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.cluster.ClusterStatus.Mode;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's link to the cluster's Redis: one command connection, one pub/sub connection for
 * invalidations, and a circuit breaker of our own around both, so a dead or slow Redis costs a
 * request nothing.
 *
 * <ul>
 *   <li>Every command waits at most {@link ClusterConfig#commandTimeout()} (default 100 ms); a slower
 *       answer is a failure and the caller answers from local state ({@link #call} returns empty).
 *   <li>{@value #FAILURES_IN_A_ROW} failures in a row (no success between them) spanning at least
 *       one command timeout ({@link FailureRun}) open the link's breaker: for the next 500 ms every
 *       call returns empty at once, without touching the network; then one trial command probes
 *       Redis and a success rejoins. A burst of timeouts from one stall of a loaded host does not
 *       switch. Lettuce reconnects in the background every 250 ms.
 *   <li>The mode (SHARED / LOCAL) is exposed by {@link #status()} and {@link #bindTo(MeterRegistry)},
 *       which count every switch, and logged on a switch, at most three lines a minute ({@link
 *       SwitchLines}: a Redis slower than the command timeout flaps the link).
 *   <li>Listeners hear every invalidation published on {@code levee:<name>:events} and, on rejoin,
 *       a call to forget everything (messages sent while away were lost).
 * </ul>
 *
 * <p>Redis starting empty (a restart) is harmless: every value kept there is soft state whose
 * absence means "nothing known" (breaker CLOSED, no cooldown, full budget, tier T0). Thread-safe.
 */
public final class RedisLink implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RedisLink.class);
  // opened by FailureRun's verdict (one failure reported to it is enough), for 500 ms; a probe closes it
  private static final CircuitBreakerConfig GUARD =
      CircuitBreakerConfig.of(1, Duration.ofSeconds(10), Duration.ofMillis(500)).withCloseAfter(1)
          .withFailureRate(Double.MIN_VALUE);
  /** Failures in a row, with no success between them, before the link leaves Redis. */
  static final int FAILURES_IN_A_ROW = 3;
  private static final Duration RECONNECT_EVERY = Duration.ofMillis(250);
  private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(1);

  private final ClusterConfig config;
  private final String endpoint;
  private final String channel;
  private final long timeoutNanos;
  private final CircuitBreaker guard;
  private final FailureRun run;
  private final Ticker ticker;
  private final ClientResources resources;
  private final RedisClient client;
  private final ScheduledExecutorService connector;
  private final List<Consumer<String>> invalidations = new CopyOnWriteArrayList<>();
  private final List<Runnable> rejoins = new CopyOnWriteArrayList<>();
  private final AtomicReference<Mode> mode = new AtomicReference<>(); // null until the first attempt ends
  private final AtomicLong switches = new AtomicLong();
  private final LongAdder localAnswers = new LongAdder();
  private volatile String reason = "connecting";
  private volatile StatefulRedisConnection<String, String> connection;
  private volatile StatefulRedisPubSubConnection<String, String> pubsub;
  private volatile boolean closed;
  private final SwitchLines lines;

  /**
   * Starts connecting in the background and returns at once; until Redis answers, {@link #call}
   * returns empty and the replica works from local state.
   *
   * @param config an enabled cluster config
   * @param ticker monotonic time for the link's own breaker
   * @throws IllegalArgumentException when {@code config} is off
   */
  public RedisLink(ClusterConfig config, Ticker ticker) {
    if (!config.enabled()) {
      throw new IllegalArgumentException("cluster sharing is off: no cluster.redis configured");
    }
    this.config = config;
    this.endpoint = config.redis().getHost() + ":" + (config.redis().getPort() < 0 ? 6379 : config.redis().getPort());
    this.channel = config.prefix() + "events";
    this.timeoutNanos = config.commandTimeout().toNanos();
    this.guard = new CircuitBreaker("redis " + endpoint, GUARD, ticker);
    this.run = new FailureRun(FAILURES_IN_A_ROW, timeoutNanos);
    this.ticker = ticker;
    this.guard.onTransition(t -> noteMode());
    this.lines = new SwitchLines(ticker, 3);
    this.resources = ClientResources.builder()
        .ioThreadPoolSize(2)
        .computationThreadPoolSize(2)
        .reconnectDelay(Delay.constant(RECONNECT_EVERY))
        .build();
    this.client = RedisClient.create(resources, RedisURI.create(config.redis()));
    this.client.setOptions(ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofMillis(250)).keepAlive(true).build())
        .timeoutOptions(TimeoutOptions.enabled(SETUP_TIMEOUT))
        .build());
    this.connector = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "levee-cluster-" + config.name());
      thread.setDaemon(true);
      return thread;
    });
    connector.execute(this::connect);
    connector.scheduleWithFixedDelay(this::probe, RECONNECT_EVERY.toMillis(), RECONNECT_EVERY.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The cluster's settings. */
  public ClusterConfig config() {
    return config;
  }

  /** The key (or channel) {@code levee:<name>:<suffix>}. */
  public String key(String suffix) {
    return config.prefix() + suffix;
  }

  /** The channel every invalidation is published on. */
  String channel() {
    return channel;
  }

  /** Whether a shared operation would go to Redis now (connected and the link's breaker closed). */
  public boolean shared() {
    return mode.get() == Mode.SHARED;
  }

  /**
   * Whether an operation should try Redis now (connected; the link's breaker then decides in
   * {@link #call}); when not, it is counted as answered locally. The shared classes call this once
   * per operation.
   */
  boolean tryShared() {
    StatefulRedisConnection<String, String> c = connection;
    if (c != null && c.isOpen()) {
      return true;
    }
    localAnswers.increment();
    return false;
  }

  /**
   * Waits until the link shares state or {@code timeout} passes (start-up and tests; never on the
   * request path).
   *
   * @return whether the link is SHARED
   */
  public boolean awaitShared(Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (!shared() && System.nanoTime() - end < 0) {
      Thread.sleep(5);
    }
    return shared();
  }

  /** The link's mode for {@code /health}. */
  public ClusterStatus status() {
    noteMode(); // a link with no traffic still reports a lost connection
    Mode now = mode.get() == Mode.SHARED ? Mode.SHARED : Mode.LOCAL;
    return new ClusterStatus(now, endpoint, now == Mode.SHARED ? "" : reason, switches.get(), localAnswers.sum());
  }

  /**
   * Registers {@code levee_cluster_shared} (1 SHARED, 0 LOCAL), {@code levee_cluster_switches_total}
   * and {@code levee_cluster_local_answers_total}.
   */
  public void bindTo(MeterRegistry registry) {
    Gauge.builder("levee.cluster.shared", this, link -> link.shared() ? 1 : 0)
        .tag("cluster", config.name()).description("1 while this replica shares state through Redis")
        .register(registry);
    FunctionCounter.builder("levee.cluster.switches", switches, AtomicLong::get)
        .tag("cluster", config.name()).description("switches between shared and local state")
        .register(registry);
    FunctionCounter.builder("levee.cluster.local.answers", localAnswers, LongAdder::sum)
        .tag("cluster", config.name()).description("shared operations answered locally because Redis was away")
        .register(registry);
  }

  /** Hears every invalidation message (a key suffix such as {@code breaker:{target}}). */
  void onInvalidation(Consumer<String> listener) {
    invalidations.add(listener);
  }

  /** Hears every rejoin: local copies must be forgotten, messages sent while away were lost. */
  void onRejoin(Runnable listener) {
    rejoins.add(listener);
  }

  /**
   * Runs one command with the link's timeout.
   *
   * @param command builds the command; its result must not be null
   * @return the result, or empty when Redis is away, slow or failed (the caller decides locally)
   */
  <T> Optional<T> call(Function<RedisAsyncCommands<String, String>, RedisFuture<T>> command) {
    return call(command, null);
  }

  /** Runs a script by digest, sending its text only when Redis has forgotten it. */
  <T> Optional<T> eval(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
    return call(c -> c.<T>evalsha(script.sha(), type, keys, args), c -> c.<T>eval(script.text(), type, keys, args));
  }

  private <T> Optional<T> call(Function<RedisAsyncCommands<String, String>, RedisFuture<T>> command,
      Function<RedisAsyncCommands<String, String>, RedisFuture<T>> onNoScript) {
    StatefulRedisConnection<String, String> c = connection;
    if (c == null || !(guard.tryAcquire() instanceof CircuitBreaker.Admitted(Permit permit))) {
      localAnswers.increment();
      return Optional.empty();
    }
    try {
      T value = await(command.apply(c.async()));
      succeeded(permit);
      noteMode();
      return Optional.ofNullable(value);
    } catch (ExecutionException e) {
      if (onNoScript != null && String.valueOf(e.getCause().getMessage()).startsWith("NOSCRIPT")) {
        try {
          T value = await(onNoScript.apply(c.async()));
          succeeded(permit);
          return Optional.ofNullable(value);
        } catch (ExecutionException | TimeoutException | RuntimeException retry) {
          return failed(permit, retry);
        } catch (InterruptedException interrupted) {
          return interrupted(permit);
        }
      }
      return failed(permit, e.getCause());
    } catch (TimeoutException | RuntimeException e) {
      return failed(permit, e);
    } catch (InterruptedException e) {
      return interrupted(permit);
    }
  }

  private <T> T await(RedisFuture<T> future) throws ExecutionException, TimeoutException, InterruptedException {
    try {
      return future.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      future.cancel(false);
      throw e;
    }
  }

  private void succeeded(Permit permit) {
    run.succeeded();
    permit.success();
  }

  /**
   * A failed command leaves Redis (opens the guard) only when it is the probe, or when it ends a
   * {@link FailureRun} of {@value #FAILURES_IN_A_ROW} failures in a row spanning one command
   * timeout; a lone slow command on a loaded host is answered locally and forgotten (newcomer
   * trial: counting 3 slow commands in 10 s switched a replica 17–40 times a minute at load 20).
   */
  private <T> Optional<T> failed(Permit permit, Throwable error) {
    if (permit.trial() || run.failed(ticker.nanos())) {
      permit.failure();
    } else {
      permit.cancelled();
    }
    reason = describe(error);
    localAnswers.increment();
    noteMode();
    return Optional.empty();
  }

  private <T> Optional<T> interrupted(Permit permit) {
    Thread.currentThread().interrupt();
    permit.cancelled();
    localAnswers.increment();
    return Optional.empty();
  }

  /**
   * While LOCAL, pings Redis through the link's breaker, so the replica rejoins without traffic;
   * sums up the switches not logged once their minute is over.
   */
  private void probe() {
    logSwitches(false);
    if (!closed && connection != null && mode.get() != Mode.SHARED) {
      if (call(c -> c.ping()).isEmpty()) {
        localAnswers.decrement(); // a failed probe is not an operation answered locally
      }
    }
  }

  private void connect() {
    if (closed) {
      return;
    }
    StatefulRedisConnection<String, String> c = null;
    StatefulRedisPubSubConnection<String, String> p = null;
    try {
      c = client.connect(StringCodec.UTF8);
      p = client.connectPubSub(StringCodec.UTF8);
      p.addListener(new RedisPubSubAdapter<>() {
        @Override
        public void message(String from, String message) {
          for (Consumer<String> listener : invalidations) {
            listener.accept(message);
          }
        }
      });
      p.async().subscribe(channel).get(SETUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      pubsub = p;
      connection = c;
      noteMode();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      reason = describe(e);
      if (p != null) p.closeAsync();
      if (c != null) c.closeAsync();
      noteMode();
      if (!closed) {
        connector.schedule(this::connect, RECONNECT_EVERY.toMillis(), TimeUnit.MILLISECONDS);
      }
    }
  }

  /** Recomputes the mode; logs and tells listeners only when it changed. */
  private void noteMode() {
    StatefulRedisConnection<String, String> c = connection;
    Mode now = c != null && c.isOpen() && guard.state() == CircuitState.CLOSED
        ? Mode.SHARED : Mode.LOCAL;
    if (now == Mode.LOCAL && c != null && !c.isOpen()) {
      reason = "connection lost; reconnecting every " + RECONNECT_EVERY.toMillis() + " ms";
    }
    Mode before = mode.getAndSet(now);
    if (before == now) {
      return;
    }
    if (before != null) {
      switches.incrementAndGet();
    }
    if (closed) {
      return; // closing is not Redis going away
    }
    if (now == Mode.SHARED) {
      for (Runnable listener : rejoins) {
        listener.run();
      }
    }
    logSwitches(true);
  }

  /** Logs the mode when {@link SwitchLines} says a line is due. */
  private void logSwitches(boolean switched) {
    String flaps = lines.due(switched, switches.get());
    if (flaps == null) {
      return;
    }
    if (mode.get() == Mode.SHARED) {
      log.info("cluster {}: sharing state through Redis at {}{}", config.name(), endpoint, flaps);
    } else {
      log.warn("cluster {}: Redis at {} is away ({}); deciding from local state until it returns{}",
          config.name(), endpoint, reason, flaps);
    }
  }

  private static String describe(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }

  /** Closes both connections and the client; calls afterwards answer locally. */
  @Override
  public void close() {
    closed = true;
    connector.shutdownNow();
    connection = null; // the client's shutdown closes both connections; closing them first made Lettuce warn
    client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    resources.shutdown(0, 1, TimeUnit.SECONDS);
  }
}
