package dev.levee.gateway.jobs;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Outage queueing for interactive requests: a non-streaming request of a feature with {@code
 * on-outage: queue} (or listed in the older {@code queue.on-outage}) that cannot be answered now
 * (every target failed, the feature at T3, or degraded mode) is stored as a job instead of being
 * lost, and the client is told its id; the worker pool runs it once targets answer again, and
 * {@code GET /v1/levee/jobs/{id}} returns the answer. Thread-safe.
 *
 * <p>A request is not queued, and gets what it would have got without {@code on-outage} (the
 * outage error, the T3 answer, or in degraded mode the upstream's own answer), when it is a stream
 * (a stream has no later), when the client's key would have to be kept and {@code queue.secret} is
 * unset (never stored in clear), or when it carries no API key ({@link JobRequest#clientKey}: an
 * empty one is none) and every target of its alias forwards the client's key: its job could only
 * end with the upstream's 401 {@code authentication_error}, which the client would have been told
 * "queued" for. Message Batches refuse such a batch with that 401 ({@code BatchesHandler}, the same
 * predicate); here the request simply goes on as if its feature did not queue.
 */
public final class OutageQueue {

  private final Set<String> features;
  private final JobStore store;
  private final KeySeal seal;
  private final Predicate<String> forwardsClientKey;
  private final Predicate<String> needsClientKey;
  private final InstantSource wall;
  private final Duration ttl;
  private final Runnable wake;
  private final Map<String, String> callbacks;

  /**
   * @param features the features that queue on an outage
   * @param forwardsClientKey whether calls for an alias carry the client's own key (some target's
   *     upstream has none): then the key is sealed with the job
   * @param needsClientKey whether every target of an alias forwards the client's key (no upstream of
   *     its chain has an {@code api-key}): a request for it without a key is not queued
   * @param ttl how long a queued request may wait before it expires
   * @param wake tells the worker pool new work is there
   * @param callbacks per feature, where the answer is posted once the job ends
   */
  public OutageQueue(Set<String> features, JobStore store, KeySeal seal, Predicate<String> forwardsClientKey,
      Predicate<String> needsClientKey, InstantSource wall, Duration ttl, Runnable wake,
      Map<String, String> callbacks) {
    this.callbacks = Map.copyOf(callbacks);
    this.features = Set.copyOf(features);
    this.store = store;
    this.seal = seal;
    this.forwardsClientKey = forwardsClientKey;
    this.needsClientKey = needsClientKey;
    this.wall = wall;
    this.ttl = ttl;
    this.wake = wake;
  }

  /** Whether {@code feature} queues what it cannot answer now. */
  public boolean queues(String feature) {
    return features.contains(feature);
  }

  /**
   * Queues the request when its feature queues on an outage and it can be kept and run later (not
   * a stream; a client key that must be kept can be sealed; a key when every target needs the
   * client's).
   *
   * @param tenant the request's tenant partition
   * @param alias the model or alias asked for
   * @param headers the client's headers
   * @param body the request body as received
   * @param priority 0–9
   * @return the job id, or empty when the request is not queued
   */
  public Optional<String> offer(String tenant, String feature, String alias, boolean stream, String path, String query,
      Map<String, List<String>> headers, byte[] body, int priority) {
    if (stream || !features.contains(feature)) {
      return Optional.empty();
    }
    byte[] sealed = null;
    String key = JobRequest.clientKey(headers); // an empty one is none
    if (key == null && needsClientKey.test(alias)) {
      return Optional.empty(); // its job could only end with the upstream's 401: answered as it would be unqueued
    }
    if (key != null && forwardsClientKey.test(alias)) {
      if (!seal.enabled()) {
        return Optional.empty(); // never stored in clear: the client gets the outage error instead
      }
      sealed = seal.seal(key);
    }
    Instant now = wall.instant();
    String id = store.enqueue(new NewJob(tenant, feature, alias, priority, null,
        JobRequest.replayable(path, query, headers, body), sealed, callbacks.get(feature)), now, now.plus(ttl));
    wake.run();
    return Optional.of(id);
  }
}
