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
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Regression (audit of what clients can grow, after {@code IdempotencySweepKeepsUpRegressionTest}):
 * the workers' upkeep purged ended work one slice at a time — at most {@value JobStore#PURGED_JOBS}
 * jobs in no batch and {@value JobStore#PURGED_BATCHES} batches (no further batch past {@value
 * JobStore#PURGED_ROWS} rows) every ten {@code queue.poll}s — so a queue in which more work ended per
 * upkeep than that for weeks (an outage queue expiring, a client sending many small batches) left
 * more past {@code queue.retention} at every upkeep than it deleted, and the store grew for as long
 * as it did. Given a backlog of ended work past the retention — twice a slice of jobs in no batch
 * and five more, a slice of small batches and twenty more, and one batch of a slice's rows — one
 * upkeep of the workers deletes all of it; it left 11,065 of the 12,365 jobs on SQLite and 1,335
 * on PostgreSQL (the order batches are found in differs).
 *
 * <p>The workers' monotonic clock stands still, so the purge's time budget never runs out and the
 * dispatcher polls (and keeps up) exactly once; a chore the test adds to the upkeep ({@link
 * JobWorkers#alsoKeepUp}), which runs right after the purge, counts what is left. Both stores.
 */
class JobsPurgeKeepsUpRegressionTest {

  private static final Duration TTL = Duration.ofHours(1);
  private static final int UNBATCHED = 2 * JobStore.PURGED_JOBS + 5;
  private static final int SMALL_BATCHES = JobStore.PURGED_BATCHES + 20;

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  private static NewJob job(String customId) {
    JobRequest request = new JobRequest("/v1/messages", null, Map.of(),
        "{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[]}".getBytes(StandardCharsets.UTF_8));
    return new NewJob("key:t", "default", "emu-ok", 5, customId, request, null);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void oneUpkeepDeletesEveryEndedJobAndBatchPastTheRetention(Database.Dialect dialect) throws Exception {
    QueueConfig config = databases.config(dialect);
    Database db = databases.open(config);
    JobStore store = new JobStore(db);
    BatchStore batches = new BatchStore(store);
    Instant then = Instant.parse("2026-01-01T00:00:00Z");
    db.inTransaction("store the backlog", c -> store.insert(c, null, Collections.nCopies(UNBATCHED, job(null)), then,
        then.plus(TTL)));
    for (int i = 0; i < SMALL_BATCHES; i++) {
      batches.create("key:t", List.of(job("a"), job("b"), job("c")), then, then.plus(TTL));
    }
    List<NewJob> large = new ArrayList<>(JobStore.PURGED_ROWS);
    for (int i = 0; i < JobStore.PURGED_ROWS; i++) {
      large.add(job("r" + i));
    }
    batches.create("key:t", large, then, then.plus(TTL));
    Instant expired = then.plus(TTL).plusSeconds(60);
    store.expire(expired); // every request ended unrun: an outage queue's ending
    Instant now = expired.plus(JobStore.RETENTION).plusSeconds(60);

    BlockingQueue<long[]> leftAfterOneUpkeep = new ArrayBlockingQueue<>(1);
    JobWorkers workers = new JobWorkers(store, (request, key, lost, trial) -> {
      throw new AssertionError("no job is queued");
    }, () -> PauseGate.Paused.NONE, KeySeal.of(config.secret()), InstantSource.fixed(now), config, () -> 0L);
    workers.alsoKeepUp((nanos, budget) -> { // runs right after the upkeep's purge
      if (leftAfterOneUpkeep.isEmpty()) {
        leftAfterOneUpkeep.add(new long[] {count(db, "jobs"), count(db, "batches")});
      }
    });
    try {
      workers.start();
      long[] left = leftAfterOneUpkeep.poll(60, TimeUnit.SECONDS);

      assertThat(left).as("the upkeep ran").isNotNull();
      assertThat(left[0]).as("jobs left after one upkeep, of %d ended past the retention",
          UNBATCHED + 3 * SMALL_BATCHES + JobStore.PURGED_ROWS).isZero();
      assertThat(left[1]).as("batches left after one upkeep, of %d", SMALL_BATCHES + 1).isZero();
    } finally {
      workers.close();
    }
  }

  /**
   * The dispatcher is never held long: {@link JobStore#purgeAll} starts no further slice once its
   * budget has passed on the monotonic clock, and always deletes one; what it left goes at the next
   * call. The ticker here moves half the budget each time it is read.
   */
  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aPurgeStartsNoSliceOnceItsBudgetIsSpent(Database.Dialect dialect) throws Exception {
    Database db = databases.fresh(dialect);
    JobStore store = new JobStore(db);
    Instant then = Instant.parse("2026-01-01T00:00:00Z");
    int backlog = 5 * JobStore.PURGED_JOBS;
    db.inTransaction("store the backlog", c -> store.insert(c, null, Collections.nCopies(backlog, job(null)), then,
        then.plus(TTL)));
    Instant expired = then.plus(TTL).plusSeconds(60);
    store.expire(expired);
    Instant now = expired.plus(JobStore.RETENTION).plusSeconds(60);
    Duration budget = Duration.ofSeconds(1);
    AtomicLong ticker = new AtomicLong();
    LongSupplier halfABudgetAReading = () -> ticker.getAndAdd(budget.toNanos() / 2);

    assertThat(store.purgeAll(now, JobStore.RETENTION, halfABudgetAReading, budget))
        .as("slices begun within the budget: at its start and half-way").isEqualTo(2 * JobStore.PURGED_JOBS);
    assertThat(store.purgeAll(now, JobStore.RETENTION, () -> 0L, Duration.ZERO)).as("no budget: one slice")
        .isEqualTo(JobStore.PURGED_JOBS);
    assertThat(store.purgeAll(now, JobStore.RETENTION, () -> 0L, budget)).as("the rest, at the next call")
        .isEqualTo(2 * JobStore.PURGED_JOBS);
    assertThat(count(db, "jobs")).isZero();
  }

  private static long count(Database db, String table) {
    try (Connection c = db.connection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
