package dev.levee.gateway.cluster;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The {@code cluster:} section of the gateway config: where replicas share their soft state.
 *
 * <pre>
 * cluster:
 *   redis: redis://127.0.0.1:6379   # required to turn sharing on
 *   name: prod                      # key prefix: replicas with the same name share state
 *   command-timeout: 100ms          # default 100 ms; a slower answer counts as failed
 *   view-ttl: 50ms                  # default 50 ms; how long a replica trusts its last read
 * </pre>
 *
 * <p>Off by default ({@link #OFF}): a single process needs nothing. Every key Levee writes starts
 * with {@code levee:<name>:}, so several clusters (or tests) can use one Redis side by side.
 *
 * @param redis {@code redis://host:port[/db]} or {@code rediss://…}; null means off
 * @param name the cluster's name, 1–64 characters of {@code [A-Za-z0-9_.-]} (default {@code levee})
 * @param commandTimeout how long one Redis command may take before the replica answers from local
 *     state (default 100 ms, at most 1 s; see docs/production.md for why)
 * @param viewTtl how long a replica serves a shared value from its local copy without asking Redis
 *     again; pub/sub invalidation usually replaces it sooner (default 50 ms, at most 1 s)
 * @throws IllegalArgumentException for a URI that is not {@code redis://} or {@code rediss://}, a bad
 *     name, or a timeout out of range
 */
public record ClusterConfig(URI redis, String name, Duration commandTimeout, Duration viewTtl) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private static final Duration MAX = Duration.ofSeconds(1);

  /**
   * The default {@code command-timeout}: 100 ms. A shared read waits at most this long on a
   * request's path (most reads are served from a refreshed local copy and wait for nothing); a
   * loaded host's scheduling stalls of tens of ms stay under it (docs/production.md).
   */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofMillis(100);

  /** Sharing off: every replica keeps its own state. */
  public static final ClusterConfig OFF = new ClusterConfig(null, null, null, null);

  public ClusterConfig {
    name = name == null ? "levee" : name;
    commandTimeout = commandTimeout == null ? DEFAULT_COMMAND_TIMEOUT : commandTimeout;
    viewTtl = viewTtl == null ? Duration.ofMillis(50) : viewTtl;
    if (redis != null && !"redis".equals(redis.getScheme()) && !"rediss".equals(redis.getScheme())) {
      throw new IllegalArgumentException(
          "cluster.redis must be a redis:// or rediss:// URI, was '" + redis.getScheme() + ":…'");
    }
    if (redis != null && redis.getHost() == null) {
      throw new IllegalArgumentException("cluster.redis needs a host, as in redis://127.0.0.1:6379");
    }
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("cluster.name must be 1-64 characters of A-Z a-z 0-9 _ . -, was '" + name + "'");
    }
    requireWithin("cluster.command-timeout", commandTimeout);
    requireWithin("cluster.view-ttl", viewTtl);
  }

  /** Sharing through {@code redis} under {@code name}, with the default timeouts. */
  public static ClusterConfig of(String redis, String name) {
    return new ClusterConfig(URI.create(Objects.requireNonNull(redis, "redis")), name, null, null);
  }

  /** Whether sharing is on. */
  public boolean enabled() {
    return redis != null;
  }

  /** The prefix of every key and channel of this cluster: {@code levee:<name>:}. */
  public String prefix() {
    return "levee:" + name + ":";
  }

  /** The same settings with other timeouts (tests and benchmarks). */
  public ClusterConfig withTimeouts(Duration commandTimeout, Duration viewTtl) {
    return new ClusterConfig(redis, name, commandTimeout, viewTtl);
  }

  private static void requireWithin(String key, Duration value) {
    if (!value.isPositive() || value.compareTo(MAX) > 0) {
      throw new IllegalArgumentException(key + " must be above 0 and at most 1s, was " + value);
    }
  }

  @Override
  public String toString() {
    // a redis URI may carry a password (redis://:secret@host): never print it
    return enabled()
        ? "ClusterConfig[redis=" + redis.getScheme() + "://" + redis.getHost() + ":" + redis.getPort()
            + ", name=" + name + ", commandTimeout=" + commandTimeout + ", viewTtl=" + viewTtl + "]"
        : "ClusterConfig[off]";
  }
}
