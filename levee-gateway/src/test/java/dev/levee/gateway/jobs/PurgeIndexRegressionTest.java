package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Regression (small items): the purge of ended work ({@link JobStore#purge}, every ten {@code
 * queue.poll}s) found its batches by {@code created_at}, which no index of {@code batches} led
 * with, so on a store holding {@link JobStore#RETENTION} of batches every purge read the whole
 * table — a sequential scan on PostgreSQL, a scan of {@code batches_by_tenant} on SQLite — to find
 * none old enough; each batch it found was then checked for requests still open by reading all its
 * requests (up to 100,000). On SQLite the jobs in no batch were read through {@code jobs_by_batch}
 * ({@code batch_id IS NULL}): every such job of the last 29 days, each time. A migrated store
 * ({@code V10__purge}) reads each through an index that fits: the batches by age, the open
 * requests of a batch, and (SQLite; PostgreSQL reads {@code jobs_listed}) the jobs in no batch by
 * age.
 */
class PurgeIndexRegressionTest {

  private static final Instant NOW = Instant.parse("2026-03-01T00:00:00Z");
  private static final int BATCHES = 1_000;
  private static final int REQUESTS_PER_BATCH = 10;
  private static final int UNBATCHED = 20_000;

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void onAStoreHoldingTheRetentionsWorkThePurgeReadsThroughIndexes(Database.Dialect dialect) throws SQLException {
    Database db = databases.fresh(dialect);
    holdTheRetentionsEndedWork(db); // what a store the purge keeps up with holds: nothing older
    long before = NOW.minus(JobStore.RETENTION).toEpochMilli();

    String batches = QueryPlans.chosen(db, JobStore.ENDED_BATCHES, before);
    String unbatched = QueryPlans.chosen(db, JobStore.PURGE_UNBATCHED, before, before);

    assertThat(batches).as(batches).contains("batches_by_age").contains("jobs_open_by_batch")
        .doesNotContain("Seq Scan").doesNotContain("SCAN ");
    assertThat(unbatched).as(unbatched).doesNotContain("Seq Scan").doesNotContain("SCAN ")
        .contains(dialect == Database.Dialect.POSTGRESQL ? "jobs_listed" : "jobs_unbatched_by_age");
  }

  /**
   * {@value #BATCHES} batches of {@value #REQUESTS_PER_BATCH} requests and {@value #UNBATCHED} jobs
   * in no batch, all ended, made evenly over the {@link JobStore#RETENTION} before {@link #NOW}; on
   * PostgreSQL the tables analyzed, as autovacuum would have.
   */
  private static void holdTheRetentionsEndedWork(Database db) throws SQLException {
    long span = JobStore.RETENTION.minus(Duration.ofMinutes(1)).toMillis();
    long start = NOW.toEpochMilli() - span;
    try (Connection c = db.connection()) {
      c.setAutoCommit(false);
      try (PreparedStatement batch = c.prepareStatement(
              "INSERT INTO batches (id, tenant, created_at, expires_at, total) VALUES (?, ?, ?, ?, ?)");
          PreparedStatement job = c.prepareStatement("INSERT INTO jobs (id, tenant, feature, alias, priority, batch_id, "
              + "position, request_path, request_headers, request_body, state, created_at, updated_at, run_after, "
              + "finished_at, expires_at) VALUES (?, 'key:t', 'default', 'chat', 5, ?, ?, '/v1/messages', '{}', ?, "
              + "'succeeded', ?, ?, ?, ?, ?)")) {
        for (int b = 0; b < BATCHES; b++) {
          long created = start + span * b / BATCHES;
          batch.setString(1, "msgbatch_" + b);
          batch.setString(2, "key:t" + b % 50);
          batch.setLong(3, created);
          batch.setLong(4, created + Duration.ofDays(1).toMillis());
          batch.setInt(5, REQUESTS_PER_BATCH);
          batch.addBatch();
          for (int r = 0; r < REQUESTS_PER_BATCH; r++) {
            addJob(job, "job_" + b + "_" + r, "msgbatch_" + b, r, created);
          }
        }
        batch.executeBatch();
        for (int j = 0; j < UNBATCHED; j++) {
          addJob(job, "job_" + j, null, 0, start + span * j / UNBATCHED);
        }
        job.executeBatch();
      }
      c.commit();
      c.setAutoCommit(true);
      if (db.dialect() == Database.Dialect.POSTGRESQL) {
        try (Statement s = c.createStatement()) {
          s.execute("ANALYZE batches");
          s.execute("ANALYZE jobs");
        }
      }
    }
  }

  private static void addJob(PreparedStatement job, String id, String batch, int position, long created)
      throws SQLException {
    job.setString(1, id);
    job.setString(2, batch);
    job.setInt(3, position);
    job.setBytes(4, new byte[] {'{', '}'});
    job.setLong(5, created);
    job.setLong(6, created + 1_000);
    job.setLong(7, created);
    job.setLong(8, created + 1_000);
    job.setLong(9, created + Duration.ofDays(1).toMillis());
    job.addBatch();
  }
}
