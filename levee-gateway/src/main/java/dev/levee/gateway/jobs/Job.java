package dev.levee.gateway.jobs;

import java.time.Instant;

/**
 * One unit of queued work, as stored.
 *
 * @param id {@code job_…}, unique
 * @param tenant the tenant partition (a hash of the key and/or a named tenant, never a key)
 * @param feature the feature whose tier gates it
 * @param alias the model or alias the request asks for
 * @param priority 0 (lowest) to 9 (highest): drained by priority, then age
 * @param batchId the Message Batch it belongs to, or null
 * @param customId the batch request's {@code custom_id}, or null
 * @param request what to replay
 * @param sealedKey the client's API key sealed with the queue secret, or null (see {@link KeySeal})
 * @param state where it is
 * @param attempts how many times a worker claimed it (more than one after a crash or an outage)
 * @param createdAt when it was accepted
 * @param expiresAt when it expires if it has not ended
 * @param result the recorded answer, or null
 * @param lastError why the last try did not end it, or null
 * @param runAfter when a queued job may run again at the earliest (after a failed try, {@code
 *     queue.retry-delay} or the upstream's {@code retry-after} later)
 */
public record Job(String id, String tenant, String feature, String alias, int priority, String batchId,
    String customId, JobRequest request, byte[] sealedKey, JobState state, int attempts, Instant createdAt,
    Instant expiresAt, JobResult result, String lastError, Instant runAfter) {

  @Override
  public String toString() {
    return "Job[" + id + " " + state + " attempts=" + attempts + "]";
  }
}
