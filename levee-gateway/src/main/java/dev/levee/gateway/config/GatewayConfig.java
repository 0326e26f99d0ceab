package dev.levee.gateway.config;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.levee.anthropic.stream.StreamSettings;
import dev.levee.core.breaker.CircuitBreakerConfig;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

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
 */
public record GatewayConfig(
    Server server, Map<String, Upstream> upstreams, Map<String, Route> models, Policy policy,
    Map<String, Feature> features, Tiers tiers, Cache cache, Admin admin,
    dev.levee.gateway.jobs.QueueConfig queue) {

  public GatewayConfig {
    server = server == null ? new Server(null, null, null, null) : server;
    upstreams = upstreams == null ? Map.of() : upstreams;
    models = models == null ? Map.of() : models;
    policy = policy == null ? new Policy(null, null, null, null, null, null, null) : policy;
    features = features == null ? Map.of() : features;
    tiers = tiers == null ? new Tiers(null, null, null, null, null) : tiers;
    cache = cache == null ? new Cache(null, null) : cache;
    admin = admin == null ? new Admin(null) : admin;
    queue = queue == null ? dev.levee.gateway.jobs.QueueConfig.defaults() : queue;
  }

  /** This config listening on another port. */
  public GatewayConfig withPort(int port) {
    return new GatewayConfig(new Server(server.host(), port, server.maxBody(), server.idleTimeout()),
        upstreams, models, policy, features, tiers, cache, admin, queue);
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
   */
  public record Tiers(Duration evaluateEvery, Duration healthyFor, Double slo, String webhook, Duration window) {
    public Tiers {
      window = window == null ? Duration.ofSeconds(60) : window;
      if (!window.isPositive()) throw new IllegalArgumentException("window must be positive");
      evaluateEvery = evaluateEvery == null ? Duration.ofSeconds(5) : evaluateEvery;
      healthyFor = healthyFor == null ? Duration.ofSeconds(30) : healthyFor;
      slo = slo == null ? 0.995 : slo;
      webhook = webhook == null ? "" : webhook;
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
   */
  public record Cache(@JsonDeserialize(using = Deserializers.Size.class) Long maxBytes, Duration maxStaleness) {
    public Cache {
      maxBytes = maxBytes == null ? 64L << 20 : maxBytes;
      maxStaleness = maxStaleness == null ? Duration.ofHours(24) : maxStaleness;
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
   */
  public record Server(String host, Integer port, @JsonDeserialize(using = Deserializers.Size.class) Long maxBody,
      Duration idleTimeout) {
    public Server {
      host = host == null ? "127.0.0.1" : host;
      port = port == null ? 8080 : port;
      maxBody = maxBody == null ? 32L << 20 : maxBody;
      idleTimeout = idleTimeout == null ? Duration.ofSeconds(300) : idleTimeout;
      if (port < 0 || port > 65535) throw new IllegalArgumentException("port must be 0-65535, was " + port);
      if (maxBody < 1) throw new IllegalArgumentException("max-body must be positive");
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
   */
  public record Route(List<TargetRef> chain, Boolean resume) {
    public Route {
      if (chain == null || chain.isEmpty()) throw new IllegalArgumentException("chain needs at least one target");
      chain = List.copyOf(chain);
      resume = resume == null || resume;
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
      deadline = deadline == null ? Duration.ofSeconds(30) : deadline;
      attemptTimeout = attemptTimeout == null ? Duration.ofSeconds(20) : attemptTimeout;
      minAttemptTime = minAttemptTime == null ? Duration.ofMillis(100) : minAttemptTime;
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
      maxRetries = maxRetries == null ? 2 : maxRetries;
      baseDelay = baseDelay == null ? Duration.ofMillis(500) : baseDelay;
      maxDelay = maxDelay == null ? Duration.ofSeconds(8) : maxDelay;
      maxRetryAfter = maxRetryAfter == null ? Duration.ofSeconds(60) : maxRetryAfter;
      if (maxRetries < 0) throw new IllegalArgumentException("max-retries must not be negative");
    }
  }

  /**
   * @param max tokens, also the initial fill (default 500)
   * @param ratio tokens earned per success (default 0.25)
   */
  public record Budget(Double max, Double ratio) {
    public Budget {
      max = max == null ? 500.0 : max;
      ratio = ratio == null ? 0.25 : ratio;
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
      maxResumes = maxResumes == null ? defaults.maxResumes() : maxResumes;
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
