package dev.levee.gateway.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.JobResult;
import dev.levee.gateway.jobs.JobStore;
import dev.levee.gateway.jobs.JobWorkers;
import dev.levee.gateway.jobs.KeySeal;
import dev.levee.gateway.jobs.PauseGate;
import dev.levee.gateway.jobs.QueueConfig;
import dev.levee.gateway.jobs.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Regression (review of the upkeep, after {@code JobsPurgeKeepsUpRegressionTest} gave the purge a
 * budget): the workers' upkeep swept idempotency keys past their TTL slice after slice until one
 * came back short ({@link IdempotencyKeys#sweepAll}) with no bound on time, on the dispatcher
 * thread that claims jobs and delivers callbacks, so after a long stop — millions of keys past their
 * TTL at once — the dispatcher was held until every one was gone. Given four slices of keys past
 * their TTL and five more, and the workers' monotonic clock moving half the upkeep's budget each
 * time it is read (the sweep reads it as it begins and after each slice), the first upkeep sweeps
 * two slices and starts no third, the second upkeep goes on with two more, the third sweeps the last
 * five; the old sweep forgot all 4,005 keys at the first upkeep.
 *
 * <p>{@code queue.poll} is 1 ms, so the budget ({@code JobWorkers.UPKEEP_BUDGET}: one poll, at most
 * 1 s) is 1 ms of the test's clock and the dispatcher never waits long on the real one. A chore the
 * test adds after the sweep counts the keys left after each upkeep. Both stores.
 */
class IdempotencySweepKeepsToItsBudgetRegressionTest {

  private static final Duration TTL = Duration.ofHours(24);
  private static final Duration POLL = Duration.ofMillis(1);
  private static final int BACKLOG = 4 * IdempotencyKeys.SWEPT_KEYS + 5;

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  private Instant now = Instant.parse("2026-01-01T00:00:00Z");

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void anUpkeepStopsStartingSlicesOnceItsBudgetIsSpentAndTheNextGoesOn(Database.Dialect dialect) throws Exception {
    QueueConfig config = polledEveryMillisecond(databases.config(dialect));
    Database db = databases.open(config);
    IdempotencyKeys keys = new IdempotencyKeys(db, () -> now, d -> now = now.plus(d), TTL, Duration.ofSeconds(60));
    JobResult answer = new JobResult(200, Map.of(), "{}".getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < BACKLOG; i++) {
      keys.finish((IdempotencyKeys.Owner) keys.begin("key:t", "k-" + i, "fp-" + i, now), answer);
    }
    now = now.plus(TTL).plusSeconds(1); // the gateway was stopped past the keys' TTL

    AtomicLong ticker = new AtomicLong();
    long halfABudget = POLL.toNanos() / 2;
    BlockingQueue<Long> leftAfterEachUpkeep = new ArrayBlockingQueue<>(3);
    JobWorkers workers = new JobWorkers(new JobStore(db), (request, key, lost, trial) -> {
      throw new AssertionError("no job is queued");
    }, () -> PauseGate.Paused.NONE, KeySeal.of(config.secret()), InstantSource.system(), config,
        () -> ticker.getAndAdd(halfABudget));
    workers.alsoKeepUp(keys::sweepAll); // as QueuedWork does
    workers.alsoKeepUp((nanos, budget) -> leftAfterEachUpkeep.offer(rows(db))); // runs after the sweep
    List<Long> left = new ArrayList<>();
    try {
      workers.start();
      for (int upkeep = 0; upkeep < 3; upkeep++) {
        left.add(leftAfterEachUpkeep.poll(60, TimeUnit.SECONDS));
      }
    } finally {
      workers.close();
    }

    assertThat(left).as("keys left after each of three upkeeps, of %d past their TTL", BACKLOG)
        .containsExactly((long) BACKLOG - 2 * IdempotencyKeys.SWEPT_KEYS, 5L, 0L);
  }

  private static QueueConfig polledEveryMillisecond(QueueConfig c) {
    return new QueueConfig(c.store(), c.schema(), c.folder(), c.workers(), POLL, c.retryDelay(), c.lease(),
        c.batchTtl(), c.secret(), c.onOutage(), c.callbacks(), c.callbackSecret(), c.pacing(), c.replicaId(),
        c.retention());
  }

  private static long rows(Database db) {
    try (Connection c = db.connection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM idempotency_keys")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
