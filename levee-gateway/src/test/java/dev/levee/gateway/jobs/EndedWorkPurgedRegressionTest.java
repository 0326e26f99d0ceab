package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.batches.BatchStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Audit of what clients can grow: every job and every Message Batch a client ever sent stayed in
 * the store for ever once ended, request and answer bodies included (only a client's own {@code
 * DELETE} of a batch removed anything), so a client sending batches, or requests queued in an
 * outage, grew the database without bound. Given 10,000 jobs over 41 virtual days (one every 6
 * minutes, each expiring unrun an hour later) and a batch every 100 of them, with the workers'
 * maintenance ({@link JobStore#expire}, then {@link JobStore#purge}) every ten jobs, the store holds
 * no more than the work of the last {@link JobStore#RETENTION} and its hour; work still queued is
 * kept however old, and so is an ended job whose callback is still owed (promise 6: nothing
 * accepted is lost).
 */
class EndedWorkPurgedRegressionTest {

  private static final Duration STEP = Duration.ofMinutes(6);
  private static final Duration TTL = Duration.ofHours(1);
  private static final int JOBS = 10_000;

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  private static NewJob job(String customId) {
    JobRequest request = new JobRequest("/v1/messages", null, Map.of(),
        "{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[]}".getBytes(StandardCharsets.UTF_8));
    return new NewJob("key:t", "default", "emu-ok", 5, customId, request, null);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void endedWorkOlderThanTheRetentionLeavesTheStore(Database.Dialect dialect) throws Exception {
    Database db = databases.open(databases.config(dialect));
    JobStore store = new JobStore(db);
    BatchStore batches = new BatchStore(store);
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    String waiting = store.enqueue(job(null), now, now.plus(Duration.ofDays(90))); // queued all along
    NewJob calling = job(null);
    String owing = store.enqueue(new NewJob(calling.tenant(), calling.feature(), calling.alias(), calling.priority(),
        null, calling.request(), null, "http://127.0.0.1:9/hook"), now, now.plus(TTL)); // its callback never delivered
    long mostJobs = 0;
    long mostBatches = 0;
    for (int i = 0; i < JOBS; i++) {
      store.enqueue(job(null), now, now.plus(TTL));
      if (i % 100 == 0) {
        batches.create("key:t", List.of(job("a"), job("b"), job("c")), now, now.plus(TTL));
      }
      now = now.plus(STEP);
      if (i % 10 == 9) { // the workers' maintenance, every ten polls
        store.expire(now);
        store.purge(now, JobStore.RETENTION);
        mostJobs = Math.max(mostJobs, count(db, "jobs"));
        mostBatches = Math.max(mostBatches, count(db, "batches"));
      }
    }

    long kept = JobStore.RETENTION.plus(TTL).dividedBy(STEP) + 10;
    assertThat(mostJobs).as("jobs held at any time, %d sent over %s", JOBS, STEP.multipliedBy(JOBS))
        .isLessThanOrEqualTo(1 + kept + 3 * (kept / 100 + 1));
    assertThat(mostBatches).as("batches held at any time").isLessThanOrEqualTo(kept / 100 + 1);
    assertThat(store.job("key:t", waiting)).as("a job still queued is kept, however old")
        .hasValueSatisfying(j -> assertThat(j.state()).isEqualTo(JobState.QUEUED));
    assertThat(store.job("key:t", owing)).as("an ended job whose callback is still owed is kept").isPresent();
  }

  /** Review: the first purge after an upgrade may find years of ended jobs; each call deletes a bounded slice. */
  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aBacklogOfEndedJobsGoesInSlices(Database.Dialect dialect) throws Exception {
    Database db = databases.open(databases.config(dialect));
    JobStore store = new JobStore(db);
    Instant then = Instant.parse("2026-01-01T00:00:00Z");
    int backlog = 2 * JobStore.PURGED_JOBS + 5;
    for (int i = 0; i < backlog; i++) {
      store.enqueue(job(null), then, then.plus(TTL));
    }
    Instant expired = then.plus(TTL).plus(STEP);
    store.expire(expired);
    Instant now = expired.plus(JobStore.RETENTION).plus(STEP);
    assertThat(store.purge(now, JobStore.RETENTION)).isEqualTo(JobStore.PURGED_JOBS);
    assertThat(store.purge(now, JobStore.RETENTION)).isEqualTo(JobStore.PURGED_JOBS);
    assertThat(store.purge(now, JobStore.RETENTION)).isEqualTo(5);
    assertThat(count(db, "jobs")).isZero();
  }

  /** {@code queue.retention} sets how long ended work is kept. */
  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void theRetentionIsTheConfigs(Database.Dialect dialect) throws Exception {
    Database db = databases.open(databases.config(dialect));
    JobStore store = new JobStore(db);
    Instant then = Instant.parse("2026-01-01T00:00:00Z");
    store.enqueue(job(null), then, then.plus(TTL));
    Instant expired = then.plus(TTL).plus(STEP);
    store.expire(expired);
    QueueConfig config = new dev.levee.gateway.config.ConfigLoader(java.util.Map.<String, String>of()::get).parse(
        "upstreams: { a: { url: https://x } }\nqueue: { retention: 168h }\n", "levee.yaml").queue();

    assertThat(config.retention()).isEqualTo(Duration.ofDays(7));
    assertThat(store.purge(expired.plus(Duration.ofDays(6)), config.retention())).as("within 7 days").isZero();
    assertThat(store.purge(expired.plus(Duration.ofDays(8)), config.retention())).isEqualTo(1);
  }

  private static long count(Database db, String table) throws SQLException {
    try (Connection c = db.connection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
