package dev.levee.gateway.jobs;

/**
 * A job to store.
 *
 * @param tenant the tenant partition (never a key)
 * @param feature the feature whose tier gates it
 * @param alias the model or alias requested
 * @param priority 0–9
 * @param customId the batch request's {@code custom_id}, or null
 * @param request what to replay
 * @param sealedKey the sealed client key, or null when the upstream has its own
 * @param callbackUrl where the answer is posted once the job ends, or null
 */
public record NewJob(String tenant, String feature, String alias, int priority, String customId, JobRequest request,
    byte[] sealedKey, String callbackUrl) {

  public NewJob {
    if (priority < 0 || priority > 9) throw new IllegalArgumentException("priority must be 0-9, was " + priority);
  }

  /** A job without a callback. */
  public NewJob(String tenant, String feature, String alias, int priority, String customId, JobRequest request,
      byte[] sealedKey) {
    this(tenant, feature, alias, priority, customId, request, sealedKey, null);
  }
}
