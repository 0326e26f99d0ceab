package dev.levee.gateway.batches;

import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.JobStore;
import dev.levee.gateway.jobs.NewJob;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Message Batches in the job store: a batch row and one job per request, written in one
 * transaction (a batch is stored whole or not at all). Every read is scoped to a tenant: another
 * tenant's batch is indistinguishable from none. Thread-safe.
 */
public final class BatchStore {

  private final JobStore jobs;
  private final Database db;

  public BatchStore(JobStore jobs) {
    this.jobs = jobs;
    this.db = jobs.database();
  }

  /** Stores a batch of {@code requests} and returns its id; nothing is stored when this throws. */
  public String create(String tenant, List<NewJob> requests, Instant now, Instant expiresAt) {
    String id = JobStore.newId("msgbatch_");
    db.inTransaction("cannot store a batch", c -> {
      try (PreparedStatement s = c.prepareStatement(
          "INSERT INTO batches (id, tenant, created_at, expires_at, total) VALUES (?,?,?,?,?)")) {
        s.setString(1, id);
        s.setString(2, tenant);
        s.setLong(3, now.toEpochMilli());
        s.setLong(4, expiresAt.toEpochMilli());
        s.setInt(5, requests.size());
        s.executeUpdate();
      }
      jobs.insert(c, id, requests, now, expiresAt);
      return id;
    });
    return id;
  }

  /** The batch {@code id} of {@code tenant}, counted now. */
  public Optional<Batch> get(String tenant, String id) {
    try (Connection c = db.connection();
        PreparedStatement s = c.prepareStatement("SELECT * FROM batches WHERE id = ? AND tenant = ?")) {
      s.setString(1, id);
      s.setString(2, tenant);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? Optional.of(read(c, rs)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot read a batch", e);
    }
  }

  /**
   * One page of {@code tenant}'s batches, newest first: those older than {@code afterId} (or
   * newer than {@code beforeId}, listed newest first too), at most {@code limit}.
   *
   * @return up to {@code limit + 1} batches: one more than asked tells there are more
   */
  public List<Batch> list(String tenant, int limit, String afterId, String beforeId) {
    StringBuilder sql = new StringBuilder("SELECT * FROM batches b WHERE tenant = ?");
    String cursor = afterId != null ? afterId : beforeId;
    if (cursor != null) {
      String cmp = afterId != null ? "<" : ">";
      sql.append(" AND (created_at, id) ").append(cmp)
          .append(" (SELECT created_at, id FROM batches WHERE id = ? AND tenant = ?)");
    }
    // before_id pages walk towards the newest: take the nearest ones, then show them newest first
    boolean ascending = beforeId != null && afterId == null;
    sql.append(ascending ? " ORDER BY created_at, id" : " ORDER BY created_at DESC, id DESC").append(" LIMIT ?");
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql.toString())) {
      int i = 1;
      s.setString(i++, tenant);
      if (cursor != null) {
        s.setString(i++, cursor);
        s.setString(i++, tenant);
      }
      s.setInt(i, limit + 1);
      List<Batch> out = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(read(c, rs));
        }
      }
      if (ascending) { // newest first, the extra row (the farthest from the cursor) kept last, where it is cut
        java.util.Collections.reverse(out.subList(0, Math.min(limit, out.size())));
      }
      return out;
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot list batches", e);
    }
  }

  /**
   * Cancels {@code tenant}'s batch: its queued requests end {@code cancelled} at once; running
   * ones finish and keep their result. Idempotent: a batch already canceling keeps its first
   * {@code cancel_initiated_at}, and a batch whose processing has ended (no request queued or
   * running: succeeded, errored, expired or cancelled before) is left as it is, without a {@code
   * cancel_initiated_at} it did not have. Anthropic's reference says "Batches may be canceled any
   * time before processing ends" and {@code cancel_initiated_at} is "Specified only if
   * cancellation was initiated", but not what cancelling an ended batch answers; Levee answers it
   * 200 with the batch unchanged, the idempotent reading (Levee's own {@code /admin} job cancel,
   * which answers 409, is another API).
   *
   * @return the batch after the cancel (unchanged when it had ended), or empty when {@code tenant}
   *     has no such batch
   */
  public Optional<Batch> cancel(String tenant, String id, Instant now) {
    db.inTransaction("cannot cancel a batch", c -> {
      try (PreparedStatement s = c.prepareStatement("UPDATE batches SET cancel_initiated_at = "
          + "COALESCE(cancel_initiated_at, ?) WHERE id = ? AND tenant = ? AND EXISTS (SELECT 1 FROM jobs "
          + "WHERE jobs.batch_id = batches.id AND jobs.state IN ('queued', 'running'))")) {
        s.setLong(1, now.toEpochMilli());
        s.setString(2, id);
        s.setString(3, tenant);
        if (s.executeUpdate() == 0) { // none of the tenant's, or ended: nothing to cancel
          return false;
        }
      }
      try (PreparedStatement s = c.prepareStatement("UPDATE jobs SET state = 'cancelled', finished_at = ?, "
          + "updated_at = ?, sealed_key = NULL WHERE batch_id = ? AND state = 'queued'")) {
        s.setLong(1, now.toEpochMilli());
        s.setLong(2, now.toEpochMilli());
        s.setString(3, id);
        s.executeUpdate();
      }
      return true;
    });
    return get(tenant, id);
  }

  /** Deletes {@code tenant}'s batch and its requests; false when there was none. */
  public boolean delete(String tenant, String id) {
    return db.inTransaction("cannot delete a batch", c -> {
      int deleted;
      try (PreparedStatement s = c.prepareStatement("DELETE FROM batches WHERE id = ? AND tenant = ?")) {
        s.setString(1, id);
        s.setString(2, tenant);
        deleted = s.executeUpdate();
      }
      if (deleted == 1) {
        try (PreparedStatement s = c.prepareStatement("DELETE FROM jobs WHERE batch_id = ?")) {
          s.setString(1, id);
          s.executeUpdate();
        }
      }
      return deleted == 1;
    });
  }

  private static Batch read(Connection c, ResultSet rs) throws SQLException {
    String id = rs.getString("id");
    long cancel = rs.getLong("cancel_initiated_at");
    Instant cancelAt = rs.wasNull() ? null : Instant.ofEpochMilli(cancel);
    long processing = 0;
    long succeeded = 0;
    long errored = 0;
    long canceled = 0;
    long expired = 0;
    long lastEnd = 0;
    try (PreparedStatement s = c.prepareStatement(
        "SELECT state, COUNT(*), MAX(finished_at) FROM jobs WHERE batch_id = ? GROUP BY state")) {
      s.setString(1, id);
      try (ResultSet counts = s.executeQuery()) {
        while (counts.next()) {
          long n = counts.getLong(2);
          lastEnd = Math.max(lastEnd, counts.getLong(3));
          switch (counts.getString(1)) {
            case "queued", "running" -> processing += n;
            case "succeeded" -> succeeded += n;
            case "failed" -> errored += n;
            case "cancelled" -> canceled += n;
            case "expired" -> expired += n;
            default -> throw new IllegalStateException("unknown job state " + counts.getString(1));
          }
        }
      }
    }
    Instant ended = processing == 0 ? Instant.ofEpochMilli(lastEnd == 0 ? rs.getLong("created_at") : lastEnd) : null;
    return new Batch(id, rs.getString("tenant"), Instant.ofEpochMilli(rs.getLong("created_at")),
        Instant.ofEpochMilli(rs.getLong("expires_at")), cancelAt, ended,
        new Batch.Counts(processing, succeeded, errored, canceled, expired));
  }
}
