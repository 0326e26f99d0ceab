package dev.levee.gateway.jobs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The {@code queue:} section: where jobs, batches and idempotency keys are kept and how fast
 * they are drained. Every field has a default, so a gateway without the section keeps its jobs
 * in an embedded SQLite file under {@code ./levee-data}.
 *
 * @param store empty for the embedded SQLite file under {@code folder} (default), or a
 *     PostgreSQL URL {@code postgresql://host:port/database?user=…} or {@code
 *     postgresql://user:password@host:port/database} for several replicas; the password is never printed
 * @param schema the PostgreSQL schema holding Levee's tables (default {@code public}; created
 *     when missing); ignored for SQLite
 * @param folder the folder of the embedded database file {@code levee.db} (default {@code
 *     levee-data}, relative to the current directory, created when missing); one gateway process
 *     holds it ({@code StoreLock}): another gateway started on it refuses to start
 * @param workers the most jobs executed at once by this gateway while no interactive request is
 *     around (default 8); {@code pacing} lowers it while there are
 * @param poll how often idle workers look for new work when nothing woke them (default 1 s)
 * @param retryDelay how long a job whose every target failed waits before it is tried again
 *     (default 5 s)
 * @param lease how long a claimed job stays its worker's without a renewal (default 60 s, at least
 *     1 s): the worker renews it every third of it while the job runs, however long the job takes
 *     (a long stream, retries, cooldowns), so this is how soon a job whose gateway died ({@code kill
 *     -9}, a lost machine) is run again by another replica or the restarted one — about one lease,
 *     plus up to ten {@code poll}s until a recovery pass runs. A shorter lease reclaims sooner, but a
 *     gateway that cannot reach the database (or stalls) for two thirds of it loses its live jobs
 *     to another worker: they run twice towards the upstream, and only one result is kept
 * @param batchTtl how long a Message Batch may take before its unfinished requests expire, and
 *     how long an idempotency key is remembered (default 24 h, the API's own)
 * @param secret base64 of a 16-, 24- or 32-byte AES key that seals client API keys kept for
 *     queued work (usually {@code ${LEVEE_QUEUE_SECRET}}); empty means client keys are never kept
 *     and queued work to an upstream without its own key is refused
 * @param onOutage the features whose non-streaming requests are queued as jobs when they cannot
 *     be answered (default none): the older spelling of {@code features.<name>.on-outage: queue}
 * @param callbacks per feature (older spelling of {@code features.<name>.callback-url}), a URL that receives each queued request's answer once it ends
 *     (see {@link CallbackSender}); default none
 * @param callbackSecret the HMAC-SHA256 key signing callbacks (usually {@code ${…}}); empty: unsigned
 * @param pacing how workers step aside for interactive requests ({@link PacingConfig}); on by
 *     default
 * @param replicaId this gateway's name among the replicas sharing a PostgreSQL store, stable across
 *     its restarts and unique among them (e.g. a StatefulSet's pod name, {@code ${HOSTNAME}}): 1–128
 *     characters of {@code [A-Za-z0-9_.:-]}; default empty, none. Each claim records it, and at
 *     start-up the gateway queues again at once the jobs its previous process left {@code running}
 *     under the same id, instead of waiting out their {@link #lease} (about a minute). Two live
 *     gateways sharing an id would take each other's running jobs at each restart (they run again;
 *     one result is kept), so never give two replicas the same one. Ignored for SQLite, whose
 *     file belongs to one process (locked, {@code StoreLock}) and is recovered whole at start-up
 * @param retention how long ended work is kept before the workers delete it (default {@link
 *     JobStore#RETENTION}, 29 days, as Anthropic keeps a batch's results; at least 1 h): a job in no
 *     batch from its end, a batch with its requests from its creation once all have ended; asked
 *     after that, its id answers 404. Work queued, running or owing its callback is never deleted
 */
public record QueueConfig(String store, String schema, String folder, Integer workers, Duration poll,
    Duration retryDelay, Duration lease, Duration batchTtl, String secret, List<String> onOutage,
    Map<String, String> callbacks, String callbackSecret, PacingConfig pacing, String replicaId,
    Duration retention) {

  /** With the default {@link #retention}. */
  public QueueConfig(String store, String schema, String folder, Integer workers, Duration poll,
      Duration retryDelay, Duration lease, Duration batchTtl, String secret, List<String> onOutage,
      Map<String, String> callbacks, String callbackSecret, PacingConfig pacing, String replicaId) {
    this(store, schema, folder, workers, poll, retryDelay, lease, batchTtl, secret, onOutage, callbacks,
        callbackSecret, pacing, replicaId, null);
  }

  /** Without a {@link #replicaId}. */
  public QueueConfig(String store, String schema, String folder, Integer workers, Duration poll,
      Duration retryDelay, Duration lease, Duration batchTtl, String secret, List<String> onOutage,
      Map<String, String> callbacks, String callbackSecret, PacingConfig pacing) {
    this(store, schema, folder, workers, poll, retryDelay, lease, batchTtl, secret, onOutage, callbacks,
        callbackSecret, pacing, null);
  }

  /**
   * The default {@link #lease}: 60 s, renewed every 20 s. A dead replica's jobs run again about a
   * minute later; a live job keeps its claim unless its gateway cannot renew for 40 s or more.
   */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);

  /** The shortest {@link #lease}: 1 s (renewed every 333 ms). */
  public static final Duration MIN_LEASE = Duration.ofSeconds(1);

  public QueueConfig {
    store = store == null ? "" : store.strip();
    if (!store.isEmpty() && !store.startsWith("postgresql://")) {
      throw new IllegalArgumentException("store must be empty (embedded SQLite) or a postgresql:// URL");
    }
    if (!store.isEmpty()) {
      try {
        java.net.URI.create(store);
      } catch (IllegalArgumentException e) { // the JDK's message would print the URL, password and all
        throw new IllegalArgumentException("store is not a valid URL (percent-encode any of :/?#[]@ in the user name or password)");
      }
    }
    schema = schema == null || schema.isBlank() ? "public" : schema;
    if (!schema.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")) {
      throw new IllegalArgumentException("schema must be a plain SQL identifier, was '" + schema + "'");
    }
    folder = folder == null || folder.isBlank() ? "levee-data" : folder;
    workers = workers == null ? 8 : workers;
    if (workers < 1 || workers > 1024) throw new IllegalArgumentException("workers must be 1-1024, was " + workers);
    poll = poll == null ? Duration.ofSeconds(1) : poll;
    retryDelay = retryDelay == null ? Duration.ofSeconds(5) : retryDelay;
    lease = lease == null ? DEFAULT_LEASE : lease;
    batchTtl = batchTtl == null ? Duration.ofHours(24) : batchTtl;
    if (!poll.isPositive() || !lease.isPositive() || !batchTtl.isPositive() || retryDelay.isNegative()) {
      throw new IllegalArgumentException("poll, lease and batch-ttl must be positive, retry-delay not negative");
    }
    retention = retention == null ? JobStore.RETENTION : retention;
    if (retention.compareTo(Duration.ofHours(1)) < 0) { // a shorter one deletes answers before their clients ask
      throw new IllegalArgumentException("retention must be at least 1h, was " + dev.levee.core.time.Spans.of(retention));
    }
    if (lease.compareTo(MIN_LEASE) < 0) { // renewed every third of it: a shorter lease is a busy loop on the database
      throw new IllegalArgumentException("lease must be at least 1s, was " + dev.levee.core.time.Spans.of(lease));
    }
    secret = secret == null ? "" : secret.strip();
    try {
      KeySeal.of(secret); // a malformed secret is a config error at start, with its line, not a failure later
    } catch (IllegalArgumentException e) { // "secret …": the loader points at the value's line, not at queue:
      throw new IllegalArgumentException(e.getMessage().replaceFirst("^queue\\.", ""), e);
    }
    onOutage = onOutage == null ? List.of() : List.copyOf(onOutage);
    callbacks = callbacks == null ? Map.of() : Map.copyOf(callbacks);
    for (Map.Entry<String, String> c : callbacks.entrySet()) {
      java.net.URI uri;
      try {
        uri = java.net.URI.create(c.getValue());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("callbacks." + c.getKey() + " is not a URL");
      }
      if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
        throw new IllegalArgumentException("callbacks." + c.getKey() + " must be an absolute http(s) URL");
      }
    }
    callbackSecret = callbackSecret == null ? "" : callbackSecret;
    pacing = pacing == null ? PacingConfig.defaults() : pacing;
    replicaId = replicaId == null ? "" : replicaId.strip();
    if (!replicaId.isEmpty() && !replicaId.matches("[A-Za-z0-9_.:-]{1,128}")) {
      throw new IllegalArgumentException("replica-id must be 1-128 characters of A-Z a-z 0-9 _ . : -, was '"
          + replicaId + "'");
    }
  }

  /** This configuration with {@code callbacks} instead (each feature's {@code callback-url} merged in). */
  public QueueConfig withCallbacks(Map<String, String> callbacks) {
    return new QueueConfig(store, schema, folder, workers, poll, retryDelay, lease, batchTtl, secret, onOutage,
        callbacks, callbackSecret, pacing, replicaId, retention);
  }

  /** The folder of the embedded database. */
  public Path folderPath() {
    return Path.of(folder);
  }

  /** Every default: embedded SQLite under {@code levee-data}. */
  public static QueueConfig defaults() {
    return new QueueConfig(null, null, null, null, null, null, null, null, null, null, null, null, null, null);
  }

  /**
   * The store as it may be printed: {@code sqlite:<folder>}, or the URL with any password hidden,
   * whether given as {@code user:password@} or as a {@code password=} parameter.
   */
  public String storeShown() {
    return store.isEmpty() ? "sqlite:" + folder
        : store.replaceFirst("^(postgresql://[^:/@?]*):[^@/?]*@", "$1:…@").replaceAll("password=[^&]*", "password=…");
  }

  @Override
  public String toString() { // never the secret, nor a password inside the store URL
    return "QueueConfig[store=" + storeShown()
        + (replicaId.isEmpty() ? "" : ", replica-id=" + replicaId)
        + ", workers=" + workers + ", secret=" + (secret.isEmpty() ? "(none)" : "(set)") + ", callbacks="
        + callbacks.keySet() + "]";
  }
}
