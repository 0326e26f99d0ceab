package dev.levee.gateway.config;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.levee.anthropic.server.ServerLimits;
import dev.levee.anthropic.stream.StreamSettings;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.chain.ChainPolicy;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Backoff;
import dev.levee.core.retry.RetryAfterPolicy;
import dev.levee.core.retry.RetryPolicy;
import dev.levee.core.slo.SloTracker;
import dev.levee.core.tier.TierControllerConfig;
import dev.levee.core.tier.TierThresholds;
import dev.levee.core.time.Spans;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.route.RouteDefaults;
import dev.levee.gateway.route.RoutingSettings;
import dev.levee.gateway.cluster.ClusterConfig;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The gateway's configuration, as read from YAML by {@link ConfigLoader} (keys in kebab-case).
 * Every field has a default except {@code upstreams}; see {@code docs/configuration.md}.
 *
 * @param server where and how the gateway listens
 * @param upstreams named Anthropic-compatible APIs (at least one); the first is where models
 *     not listed under {@code models} go
 * @param models aliases a client may send as {@code model}, each with its fallback chain
 * @param policy retries, breaker, budget, deadline and stream limits
 * @param queue the job store and workers (jobs, Message Batches, idempotency keys)
 * @param routing the scoring router's prices, task-fit matrix, half-life and typical latencies,
 *     for aliases with {@code route: score} (issue 13; every key optional)
 * @param cluster where replicas share breakers, cooldowns, retry budgets and tiers (Redis);
 *     absent means {@link ClusterConfig#OFF}: a single process needs nothing
 */
public record GatewayConfig(
    Server server, Map<String, Upstream> upstreams, Map<String, Alias> models, Policy policy,
    Map<String, Feature> features, Tiers tiers, Cache cache, Admin admin,
    dev.levee.gateway.jobs.QueueConfig queue, RoutingSettings routing, ClusterConfig cluster) {

  /** A config without {@code queue:}, {@code routing:} and {@code cluster:} sections (their defaults). */
  public GatewayConfig(Server server, Map<String, Upstream> upstreams, Map<String, Alias> models, Policy policy,
      Map<String, Feature> features, Tiers tiers, Cache cache, Admin admin) {
    this(server, upstreams, models, policy, features, tiers, cache, admin, null, null, null);
  }

  public GatewayConfig {
    server = server == null ? new Server(null, null, null, null, null, null, null, null, null, null, null, null, null, null, null) : server;
    upstreams = upstreams == null ? Map.of() : upstreams;
    models = models == null ? Map.of() : models;
    policy = policy == null ? new Policy(null, null, null, null, null, null, null) : policy;
    features = features == null ? Map.of() : features;
    tiers = tiers == null ? new Tiers(null, null, null, null, null, null, null, null) : tiers;
    cache = cache == null ? new Cache(null, null, null) : cache;
    admin = admin == null ? new Admin(null) : admin;
    queue = queue == null ? dev.levee.gateway.jobs.QueueConfig.defaults() : queue;
    routing = routing == null ? RoutingSettings.DEFAULT : routing;
    cluster = cluster == null ? ClusterConfig.OFF : cluster;
    if (cache.shared() && !cluster.enabled()) {
      throw new IllegalArgumentException("cache.store: redis needs a cluster: section with cluster.redis");
    }
    requireFeatures("queue.on-outage", queue.onOutage(), features.keySet());
    requireFeatures("queue.callbacks", queue.callbacks().keySet(), features.keySet());
  }

  /** Refuses a feature name in {@code key} that is neither configured under {@code features:} nor {@code default}: it would never apply. */
  private static void requireFeatures(String key, Collection<String> named, Set<String> configured) {
    for (String name : named) {
      if (!name.equals(Feature.DEFAULT_NAME) && !configured.contains(name)) {
        Set<String> known = new TreeSet<>(configured);
        known.add(Feature.DEFAULT_NAME);
        throw new IllegalArgumentException(key + " names '" + name + "', which is not a feature (features: "
            + String.join(", ", known) + ")" + (name.contains(" ") || name.contains(",") ? "; several are written [a, b]" : ""));
      }
    }
  }

  /**
   * Which browser origins may call ({@code server.cors}). Not set: any origin, as the Anthropic API
   * answers browsers, unless an upstream has its own {@code api-key}: then off, since any page a
   * user's browser opens could spend that key through the gateway (list the origins to allow).
   */
  public Cors cors() {
    if (server.cors() != null) {
      return server.cors();
    }
    return upstreams.values().stream().anyMatch(u -> u.apiKey() != null && !u.apiKey().isEmpty()) ? Cors.OFF : Cors.ANY;
  }

  /** This config listening on another port. */
  public GatewayConfig withPort(int port) {
    return new GatewayConfig(new Server(server.host(), port, server.maxBody(), server.idleTimeout(),
        server.sendTimeout(), server.maxConnections(), server.acceptQueue(), server.headerTimeout(),
        server.minBodyRate(), server.maxConcurrent(), server.maxConcurrentPerTenant(), server.shutdownGrace(),
        server.drainDelay(), server.cors(), server.maxBodyMemory()),
        upstreams, models, policy, features, tiers, cache, admin, queue, routing, cluster);
  }

  /** This config sharing state through {@code cluster} (tests start several replicas in one JVM). */
  public GatewayConfig withCluster(ClusterConfig cluster) {
    return new GatewayConfig(server, upstreams, models, policy, features, tiers, cache, admin, queue, routing, cluster);
  }

  /** The feature named {@code name}, or the {@code default} feature (configured or implicit). */
  public Feature feature(String name) {
    Feature f = name == null ? null : features.get(name);
    return f != null ? f : features.getOrDefault(Feature.DEFAULT_NAME, Feature.defaults());
  }

  /**
   * How degradation tiers are decided.
   *
   * @param evaluateEvery how often every feature's tier is re-evaluated (default 5 s)
   * @param healthyFor continuous healthy readings needed before stepping up one tier (default 30 s)
   * @param slo the success objective whose error-budget burn is watched (default 0.995)
   * @param webhook a URL that receives each transition as JSON, or empty
   * @param window the SLI window behind p99 and the error shares (default 60 s)
   * @param minVolume calls a window must hold before any step down, on signals or on burn
   *     (default 20): fewer make its shares noise (issue 10)
   * @param p99Down the p99 time to first token at or above which a feature steps down one tier
   *     (default 800 ms, issue 4); streams only: a JSON answer's time grows with its length
   * @param healthyP99 the p99 time to first token a feature must stay below to step up (default
   *     500 ms, issue 4); below {@code p99Down}
   */
  public record Tiers(Duration evaluateEvery, Duration healthyFor, Double slo,
      @JsonDeserialize(using = Deserializers.HttpUrl.class) String webhook, Duration window, Long minVolume,
      Duration p99Down, Duration healthyP99) {
    public Tiers {
      String downSet = p99Down == null ? " ms, the default" : " ms";
      String healthySet = healthyP99 == null ? " ms, the default" : " ms";
      p99Down = p99Down == null ? Duration.ofMillis((long) TierThresholds.DEFAULT.p99DownMillis()) : p99Down;
      healthyP99 = healthyP99 == null ? Duration.ofMillis((long) TierThresholds.DEFAULT.healthyP99Millis()) : healthyP99;
      if (!p99Down.isPositive()) throw new IllegalArgumentException("p99-down must be positive");
      if (!healthyP99.isPositive()) throw new IllegalArgumentException("healthy-p99 must be positive");
      if (healthyP99.compareTo(p99Down) >= 0) { // named by the key written, so the error points at its line
        throw new IllegalArgumentException(healthySet.endsWith("default")
            ? "p99-down (" + p99Down.toMillis() + downSet + ") must be above healthy-p99 (" + healthyP99.toMillis()
                + healthySet + "): between them a feature holds its tier; set both"
            : "healthy-p99 (" + healthyP99.toMillis() + healthySet + ") must be below p99-down (" + p99Down.toMillis()
                + downSet + "): between them a feature holds its tier" + (downSet.endsWith("default") ? "; set both" : ""));
      }
      minVolume = minVolume == null ? 20L : minVolume;
      if (minVolume < 1) throw new IllegalArgumentException("min-volume must be at least 1");
      window = window == null ? Duration.ofSeconds(60) : window;
      if (!window.isPositive()) throw new IllegalArgumentException("window must be positive");
      evaluateEvery = evaluateEvery == null ? TierControllerConfig.DEFAULT.evaluateEvery() : evaluateEvery;
      healthyFor = healthyFor == null ? TierControllerConfig.DEFAULT.healthyFor() : healthyFor;
      slo = slo == null ? SloTracker.DEFAULT_TARGET : slo;
      webhook = webhook == null ? "" : webhook;
      if (!webhook.isEmpty() && !Deserializers.HttpUrl.valid(webhook)) {
        throw new IllegalArgumentException("webhook must be an absolute http(s) URL"); // not echoed: it may hold a secret
      }
      if (!evaluateEvery.isPositive()) throw new IllegalArgumentException("evaluate-every must be positive");
      if (!(slo > 0 && slo < 1)) throw new IllegalArgumentException("slo must be between 0 and 1, e.g. 0.995");
    }
  }

  /**
   * The answer cache, also the last resort when every target fails.
   *
   * @param maxBytes memory for cached answers (default 64 MiB)
   * @param maxStaleness how long past its TTL an answer may still be served when every target
   *     failed (default 24 h)
   * @param store {@code local} (default) or {@code redis}: answers also shared by the replicas of
   *     the {@code cluster:} (docs/production.md)
   */
  public record Cache(@JsonDeserialize(using = Deserializers.Size.class) Long maxBytes, Duration maxStaleness,
      String store) {
    public Cache {
      maxBytes = maxBytes == null ? ResponseCache.Config.DEFAULT.maxBytes() : maxBytes;
      maxStaleness = maxStaleness == null ? ResponseCache.Config.DEFAULT.maxStaleness() : maxStaleness;
      store = store == null ? "local" : store;
      if (!store.equals("local") && !store.equals("redis")) {
        throw new IllegalArgumentException("store must be local or redis, was '" + store + "'");
      }
    }

    /** Whether answers are also shared with the other replicas ({@code store: redis}, needs {@code cluster:}). */
    public boolean shared() {
      return store.equals("redis");
    }
  }

  /** @param token the bearer token of {@code /admin/*}; empty disables them (default) */
  public record Admin(String token) {
    public Admin {
      token = token == null ? "" : token;
    }

    @Override
    public String toString() {
      return "Admin[token=" + (token.isEmpty() ? "(none)" : "(set)") + "]";
    }
  }

  /**
   * @param host the address to bind (default {@code 127.0.0.1}; {@code 0.0.0.0} for all)
   * @param port the port (default 8080; 0 picks a free one)
   * @param maxBody the largest request body accepted, bytes (default 32 MiB, the API's own limit)
   * @param idleTimeout how long an idle client connection is kept (default 300 s)
   * @param sendTimeout how long a write to a client may stay pending with no byte of it taken
   *     before the connection is closed and the request ends as its client gone (default 60 s, as
   *     nginx's {@code send_timeout}; at least 1 s): see {@link ServerLimits#sendTimeout()}
   * @param maxConnections, acceptQueue, headerTimeout, minBodyRate, maxConcurrent,
   *     maxConcurrentPerTenant, shutdownGrace the server's limits: see {@link ServerLimits}, whose
   *     defaults apply to absent keys
   * @param drainDelay how long a stopping gateway reports not ready ({@code /health/ready} 503
   *     {@code draining}) while still serving everything, new connections included, before its
   *     shutdown proper begins (default 0 s: none, the listener closes at once; never negative): the
   *     time a load balancer or Kubernetes takes to stop routing to it after SIGTERM (the lame-duck
   *     mode of gRPC and Finagle, Envoy's drain time, the preStop sleep of the Kubernetes docs). A
   *     stop then takes up to {@code drainDelay + shutdownGrace}
   * @param cors which browser origins may call ({@link Cors}); null when not set: {@link GatewayConfig#cors()}
   *     gives the default
   * @param maxBodyMemory the bytes of request bodies held at once, a tenant at most half (default a
   *     quarter of the JVM's maximum heap, at least twice {@code maxBody}): see {@link
   *     ServerLimits#maxBodyMemory()}
   */
  public record Server(String host, Integer port, @JsonDeserialize(using = Deserializers.Size.class) Long maxBody,
      Duration idleTimeout, Duration sendTimeout, Integer maxConnections, Integer acceptQueue, Duration headerTimeout,
      @JsonDeserialize(using = Deserializers.Size.class) Long minBodyRate, Integer maxConcurrent,
      Integer maxConcurrentPerTenant, Duration shutdownGrace, Duration drainDelay,
      @JsonDeserialize(using = Deserializers.CorsSetting.class) Cors cors,
      @JsonDeserialize(using = Deserializers.Size.class) Long maxBodyMemory) {
    public Server {
      host = host == null ? "127.0.0.1" : host;
      port = port == null ? 8080 : port;
      maxBody = maxBody == null ? 32L << 20 : maxBody;
      idleTimeout = idleTimeout == null ? Duration.ofSeconds(300) : idleTimeout;
      ServerLimits d = ServerLimits.DEFAULT;
      sendTimeout = sendTimeout == null ? d.sendTimeout() : sendTimeout;
      maxConnections = maxConnections == null ? d.maxConnections() : maxConnections;
      acceptQueue = acceptQueue == null ? d.acceptQueue() : acceptQueue;
      headerTimeout = headerTimeout == null ? d.headerTimeout() : headerTimeout;
      minBodyRate = minBodyRate == null ? d.minBodyRate() : minBodyRate;
      maxConcurrent = maxConcurrent == null ? d.maxConcurrent() : maxConcurrent;
      maxConcurrentPerTenant = maxConcurrentPerTenant == null ? Math.min(d.maxConcurrentPerTenant(), maxConcurrent)
          : maxConcurrentPerTenant;
      shutdownGrace = shutdownGrace == null ? d.shutdownGrace() : shutdownGrace;
      maxBodyMemory = maxBodyMemory == null ? ServerLimits.defaultBodyMemory(maxBody) : maxBodyMemory;
      drainDelay = drainDelay == null ? Duration.ZERO : drainDelay;
      if (drainDelay.isNegative()) {
        throw new IllegalArgumentException("drain-delay must not be negative, was " + Spans.of(drainDelay));
      }
      if (port < 0 || port > 65535) throw new IllegalArgumentException("port must be 0-65535, was " + port);
      if (maxBody < 1) throw new IllegalArgumentException("max-body must be positive");
      new ServerLimits(maxConnections, acceptQueue, headerTimeout, minBodyRate, maxConcurrent, maxConcurrentPerTenant,
          shutdownGrace, maxBody, sendTimeout, maxBodyMemory); // the same checks, messages naming the key
    }

    /**
     * What in these settings is valid but most likely a mistake, one sentence each, for a WARN at
     * start: a {@code header-timeout} under a second (a typo for seconds: {@code 10ms}), which
     * answers 408 to clients on slow networks and to those that wait for {@code 100 Continue}
     * before their body; a {@code send-timeout} not below {@code idle-timeout}, which then never
     * cuts (the idle timeout fails a stalled write first); a {@code max-body-memory} over half the
     * heap. Empty when none.
     */
    public List<String> doubtful() {
      List<String> doubts = new ArrayList<>();
      if (headerTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
        doubts.add("server.header-timeout is " + Spans.of(headerTimeout) + ": a request whose headers, or whose body's "
            + "first bytes, take longer is answered 408 (the default is 10s)");
      }
      if (maxBodyMemory > Runtime.getRuntime().maxMemory() / 2) {
        doubts.add("server.max-body-memory (" + maxBodyMemory + " bytes) is over half the heap ("
            + Runtime.getRuntime().maxMemory() + " bytes): bodies and the copies a request makes of its body may run it out");
      }
      if (sendTimeout.compareTo(idleTimeout) >= 0) {
        doubts.add("server.send-timeout (" + Spans.of(sendTimeout) + ") is not below server.idle-timeout ("
            + Spans.of(idleTimeout) + "), which cuts a client that stopped reading first");
      }
      return doubts;
    }

    /** These settings as the HTTP server takes them. */
    public ServerLimits limits() {
      return new ServerLimits(maxConnections, acceptQueue, headerTimeout, minBodyRate, maxConcurrent,
          maxConcurrentPerTenant, shutdownGrace, maxBody, sendTimeout, maxBodyMemory);
    }
  }

  /**
   * @param url the API's base URL, e.g. {@code https://api.anthropic.com}
   * @param apiKey the key Levee sends; empty to forward each client's own {@code x-api-key}
   * @param connectTimeout the longest wait to open a connection (default 5 s); one HTTP client
   *     serves every upstream, so the longest of the upstreams' values applies to all of them
   */
  public record Upstream(URI url, String apiKey, Duration connectTimeout) {
    public Upstream {
      if (url == null) throw new IllegalArgumentException("url is required");
      if (!("http".equals(url.getScheme()) || "https".equals(url.getScheme())) || url.getHost() == null) {
        throw new IllegalArgumentException("url must be an absolute http(s) URL, was '" + url + "'");
      }
      apiKey = apiKey == null ? "" : apiKey;
      connectTimeout = connectTimeout == null ? Duration.ofSeconds(5) : connectTimeout;
    }

    @Override
    public String toString() {
      return "Upstream[url=" + url + ", apiKey=" + (apiKey.isEmpty() ? "(client's)" : "(set)") + "]";
    }
  }

  /**
   * @param chain the targets, in order of preference: {@code upstream/model}, or {@code {target:
   *     upstream/model, prefill: true|false}} to override whether it accepts a prefilled answer
   * @param resume whether a stream that breaks after its first token is resumed (default true);
   *     when false it ends with an {@code event: error}
   * @param hedge hedged requests for this alias (default off): see {@link Hedge}
   * @param route {@code chain} (default: the chain's order) or {@code score} (the scoring router
   *     orders the chain per request; see {@link RouteMode})
   * @param routeDefaults what a routed request assumes when its headers say nothing (task {@code
   *     complex}, latency budget 5 s, prefer {@code balanced}); only read with {@code route: score}
   */
  public record Alias(List<TargetRef> chain, Boolean resume, Hedge hedge, RouteMode route, RouteDefaults routeDefaults) {
    public Alias {
      if (chain == null || chain.isEmpty()) throw new IllegalArgumentException("chain needs at least one target");
      chain = List.copyOf(chain);
      resume = resume == null || resume;
      route = route == null ? RouteMode.CHAIN : route;
      routeDefaults = routeDefaults == null ? RouteDefaults.DEFAULT : routeDefaults;
    }

    /** An alias with a fixed chain. */
    public Alias(List<TargetRef> chain, Boolean resume) {
      this(chain, resume, null, null, null);
    }
  }

  /**
   * {@code models.<alias>.hedge}: when the first call has not begun to answer after {@code after}
   * (no response head of a JSON answer, no first content delta of a stream), the chain's next
   * target is called too and the first to answer wins (issue 10). Each hedge needs a retry-budget
   * token and time left in the deadline; at most one per request.
   *
   * @param after a duration ({@code 500ms}, {@code 2s}), or {@code p95}: the first target's measured
   *     95th-percentile time to first byte over the last minute (at least 50 ms; 2 s until 20 calls
   *     are measured)
   */
  public record Hedge(String after) {
    public Hedge {
      if (after == null || after.isBlank()) {
        throw new IllegalArgumentException("after is required: a duration (500ms, 2s) or p95");
      }
      policyOf(after);
    }

    /** The core policy this setting names. */
    public dev.levee.core.chain.HedgePolicy policy() {
      return policyOf(after);
    }

    private static dev.levee.core.chain.HedgePolicy policyOf(String after) {
      if (after.strip().equalsIgnoreCase("p95")) {
        return dev.levee.core.chain.HedgePolicy.atP95();
      }
      Duration delay;
      try {
        delay = dev.levee.anthropic.Units.duration(after);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("after must be a duration (500ms, 2s) or p95, was '" + after + "'");
      }
      if (!delay.isPositive()) {
        throw new IllegalArgumentException("after must be positive, was '" + after + "'");
      }
      return dev.levee.core.chain.HedgePolicy.after(delay);
    }
  }

  /**
   * @param deadline the time budget of one client request, all attempts included (default 30 s)
   * @param attemptTimeout the most one upstream call may take (default 20 s)
   * @param minAttemptTime an attempt is not started with less time left (default 100 ms)
   * @param retry per-target retries
   * @param breaker the circuit breaker profile or settings; {@code off} disables breakers
   * @param retryBudget the retry budget
   * @param stream stream limits
   */
  public record Policy(Duration deadline, Duration attemptTimeout, Duration minAttemptTime, Retry retry,
      @JsonDeserialize(using = Deserializers.Breaker.class) BreakerSetting breaker, Budget retryBudget,
      Stream stream) {
    public Policy {
      deadline = deadline == null ? Deadline.DEFAULT_BUDGET : deadline;
      attemptTimeout = attemptTimeout == null ? ChainPolicy.DEFAULT.attemptTimeout() : attemptTimeout;
      minAttemptTime = minAttemptTime == null ? ChainPolicy.DEFAULT.minAttemptTime() : minAttemptTime;
      retry = retry == null ? new Retry(null, null, null, null) : retry;
      breaker = breaker == null ? new BreakerSetting(true, CircuitBreakerConfig.DEFAULT) : breaker;
      retryBudget = retryBudget == null ? new Budget(null, null) : retryBudget;
      stream = stream == null ? new Stream(null, null, null, null, null, null) : stream;
      if (!deadline.isPositive()) throw new IllegalArgumentException("deadline must be positive");
      if (!attemptTimeout.isPositive()) throw new IllegalArgumentException("attempt-timeout must be positive");
    }
  }

  /**
   * @param maxRetries retries of one target (default 2)
   * @param baseDelay full-jitter backoff base (default 500 ms)
   * @param maxDelay backoff cap (default 8 s)
   * @param maxRetryAfter the longest stated retry-after Levee waits out (default 60 s)
   */
  public record Retry(Integer maxRetries, Duration baseDelay, Duration maxDelay, Duration maxRetryAfter) {
    public Retry {
      maxRetries = maxRetries == null ? RetryPolicy.DEFAULT.maxRetries() : maxRetries;
      baseDelay = baseDelay == null ? Backoff.DEFAULT.baseDelay() : baseDelay;
      maxDelay = maxDelay == null ? Backoff.DEFAULT.maxDelay() : maxDelay;
      maxRetryAfter = maxRetryAfter == null ? RetryAfterPolicy.DEFAULT.maxRetryAfter() : maxRetryAfter;
      if (maxRetries < 0) throw new IllegalArgumentException("max-retries must not be negative");
    }

    /**
     * These settings as the fallback chain takes them; the retry-after jitter is core's ({@link
     * RetryAfterPolicy#DEFAULT}, 10%).
     */
    public RetryPolicy policy() {
      return new RetryPolicy(maxRetries, new Backoff(baseDelay, maxDelay),
          new RetryAfterPolicy(maxRetryAfter, RetryAfterPolicy.DEFAULT.jitter()));
    }
  }

  /**
   * @param max tokens, also the initial fill (default 500)
   * @param ratio tokens earned per success (default 0.25)
   */
  public record Budget(Double max, Double ratio) {
    public Budget {
      max = max == null ? RetryBudget.DEFAULT_MAX : max;
      ratio = ratio == null ? RetryBudget.DEFAULT_RATIO : ratio;
      if (!(max > 0)) throw new IllegalArgumentException("max must be positive");
      if (!(ratio >= 0)) throw new IllegalArgumentException("ratio must not be negative");
    }
  }

  /**
   * The {@code policy.stream} section: {@link StreamSettings} as written in the config, absent
   * values taking {@link StreamSettings#DEFAULT}'s, checked by the same rules.
   *
   * @param duplicates {@code keep} (default) or {@code drop}: what to do with a content delta
   *     byte-identical to the one before it (counted either way; drop only for upstreams known
   *     to replay events, since a model may genuinely repeat a chunk)
   */
  public record Stream(Duration ttftTimeout, Duration idleTimeout, Integer holdLimit, Integer maxResumes,
      Duration recoveryWindow, String duplicates) {
    public Stream {
      StreamSettings defaults = StreamSettings.DEFAULT;
      ttftTimeout = ttftTimeout == null ? defaults.ttftTimeout() : ttftTimeout;
      idleTimeout = idleTimeout == null ? defaults.idleTimeout() : idleTimeout;
      holdLimit = holdLimit == null ? defaults.holdLimit() : holdLimit;
      maxResumes = maxResumes == null ? defaults.maxRecoveries() : maxResumes;
      recoveryWindow = recoveryWindow == null ? defaults.recoveryWindow() : recoveryWindow;
      duplicates = duplicates == null ? (defaults.dropDuplicates() ? "drop" : "keep") : duplicates;
      if (!duplicates.equals("keep") && !duplicates.equals("drop")) {
        throw new IllegalArgumentException("duplicates must be keep or drop, was '" + duplicates + "'");
      }
      // the engine's own checks (fields are not assigned yet, so settings() cannot be called here)
      new StreamSettings(ttftTimeout, idleTimeout, holdLimit, maxResumes, recoveryWindow, duplicates.equals("drop"));
    }

    /** These settings as the stream engine takes them. */
    public StreamSettings settings() {
      return new StreamSettings(ttftTimeout, idleTimeout, holdLimit, maxResumes, recoveryWindow,
          duplicates.equals("drop"));
    }
  }

  /** Whether breakers are on, and their settings. */
  public record BreakerSetting(boolean enabled, CircuitBreakerConfig config) {}

  /**
   * One {@code upstream/model} entry of a chain, with the line it was written on.
   *
   * @param prefill whether the target accepts a final assistant turn; null for the default by
   *     model family (see {@code PrefillSupport})
   * @param line 1-based line in the config file, 0 when unknown
   */
  @JsonDeserialize(using = Deserializers.TargetSpec.class)
  public record TargetRef(String upstream, String model, Boolean prefill, int line) {}
}
