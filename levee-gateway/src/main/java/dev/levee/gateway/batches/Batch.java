package dev.levee.gateway.batches;

import java.time.Instant;

/**
 * A Message Batch as stored, with its requests counted by state.
 *
 * @param id {@code msgbatch_…}
 * @param tenant the tenant partition it belongs to
 * @param createdAt when it was accepted
 * @param expiresAt when its unfinished requests expire
 * @param cancelInitiatedAt when a cancel was asked for, or null
 * @param endedAt when its last request ended, or null while some are processing
 * @param counts its requests by state
 */
public record Batch(String id, String tenant, Instant createdAt, Instant expiresAt, Instant cancelInitiatedAt,
    Instant endedAt, Counts counts) {

  /** The API's {@code request_counts}. */
  public record Counts(long processing, long succeeded, long errored, long canceled, long expired) {}

  /** The API's {@code processing_status}: {@code in_progress}, {@code canceling} or {@code ended}. */
  public String processingStatus() {
    if (counts.processing() == 0) {
      return "ended";
    }
    return cancelInitiatedAt != null ? "canceling" : "in_progress";
  }
}
