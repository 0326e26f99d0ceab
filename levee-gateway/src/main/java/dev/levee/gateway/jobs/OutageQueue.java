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
 */
public final class OutageQueue {

  private final Set<String> features;
  private final JobStore store;
  private final KeySeal seal;
  private final Predicate<String> forwardsClientKey;
  private final InstantSource wall;
  private final Duration ttl;
  private final Runnable wake;
  private final Map<String, String> callbacks;

  /**
   * @param features the features that queue on an outage
   * @param forwardsClientKey whether calls for an alias carry the client's own key
   * @param ttl how long a queued request may wait before it expires
   * @param wake tells the worker pool new work is there
   * @param callbacks per feature, where the answer is posted once the job ends
   */
  public OutageQueue(Set<String> features, JobStore store, KeySeal seal, Predicate<String> forwardsClientKey,
      InstantSource wall, Duration ttl, Runnable wake, Map<String, String> callbacks) {
    this.callbacks = Map.copyOf(callbacks);
    this.features = Set.copyOf(features);
    this.store = store;
    this.seal = seal;
    this.forwardsClientKey = forwardsClientKey;
    this.wall = wall;
    this.ttl = ttl;
    this.wake = wake;
  }

  /** Whether {@code feature} queues what it cannot answer now. */
  public boolean queues(String feature) {
    return features.contains(feature);
  }

  /**
   * Queues the request when its feature queues on an outage and it can be kept (not a stream; a
   * client key that must be kept can be sealed).
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
    String key = JobRequest.clientKey(headers);
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
