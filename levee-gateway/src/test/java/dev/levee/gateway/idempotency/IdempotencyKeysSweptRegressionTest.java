package dev.levee.gateway.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.JobResult;
import dev.levee.gateway.jobs.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Audit of what clients can grow: a client that sends a new {@code idempotency-key} with every
 * request (what the key is for) left one row per key in the store for ever, its answer's body
 * included. Nothing called {@link IdempotencyKeys#sweep}: a key past its TTL was deleted only when
 * the same tenant sent the same key again, which such a client never does. Given 10,000 distinct
 * keys, one every 30 s of virtual wall time (83 h, over three TTLs), and the workers' upkeep
 * sweeping every minute, the store holds at most the keys of the last TTL and one upkeep interval,
 * and a key past its TTL is gone without being asked for again; an abandoned in-flight key (its
 * gateway died) goes once its lease is over too. (Review: the sweep ran on a request's thread, the
 * first with a key each minute, and deleted all it found at once; now the workers sweep, a slice at
 * a time.)
 */
class IdempotencyKeysSweptRegressionTest {

  private static final Duration TTL = Duration.ofHours(24);
  private static final Duration LEASE = Duration.ofSeconds(60);
  private static final Duration EVERY = Duration.ofSeconds(30);
  private static final int KEYS = 10_000;
  private static final Duration UPKEEP = Duration.ofMinutes(1); // ten polls of 6 s; the default poll (1 s) sweeps more often

  private Instant now = Instant.parse("2026-01-01T00:00:00Z");
  private final InstantSource wall = () -> now;
  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void keysPastTheirTtlLeaveTheStoreThoughNoClientAsksForThemAgain(Database.Dialect dialect) throws Exception {
    Database db = databases.open(databases.config(dialect));
    IdempotencyKeys keys = new IdempotencyKeys(db, wall, d -> now = now.plus(d), TTL, LEASE);
    var abandoned = (IdempotencyKeys.Owner) keys.begin("key:gone", "in-flight", "fp", now); // its gateway dies
    JobResult answer = new JobResult(200, Map.of("content-type", List.of("application/json")),
        "{\"id\":\"msg\"}".getBytes(StandardCharsets.UTF_8));
    long most = 0;
    for (int i = 0; i < KEYS; i++) {
      var owner = (IdempotencyKeys.Owner) keys.begin("key:t" + (i % 7), "k-" + i, "fp-" + i, now);
      keys.finish(owner, answer);
      now = now.plus(EVERY);
      if (i % (UPKEEP.toSeconds() / EVERY.toSeconds()) == 0) {
        keys.sweep(); // the workers' upkeep
      }
      most = Math.max(most, rows(db));
    }

    long bound = (TTL.plus(UPKEEP).toSeconds() / EVERY.toSeconds()) + 2;
    assertThat(most).as("rows held at any time, %d keys sent over %s", KEYS, EVERY.multipliedBy(KEYS))
        .isLessThanOrEqualTo(bound);
    assertThat(keyed(db, abandoned.key())).as("the abandoned in-flight key").isFalse();
    assertThat(keyed(db, "k-0")).as("the first key, past its TTL").isFalse();
    assertThat(keyed(db, "k-" + (KEYS - 1))).as("the newest key, within its TTL").isTrue();
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aBacklogOfKeysGoesInSlices(Database.Dialect dialect) throws Exception {
    Database db = databases.open(databases.config(dialect));
    IdempotencyKeys keys = backlogOfTwoSlicesAndFive(db);
    now = now.plus(TTL).plusSeconds(1);

    assertThat(keys.sweep()).isEqualTo(IdempotencyKeys.SWEPT_KEYS);
    assertThat(keys.sweep()).isEqualTo(IdempotencyKeys.SWEPT_KEYS);
    assertThat(keys.sweep()).isEqualTo(5);
    assertThat(rows(db)).isZero();
  }

  /** The upkeep's sweep goes on slice after slice until one comes back short (IdempotencySweepKeepsUpRegressionTest). */
  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void anUpkeepSweepsTheWholeBacklog(Database.Dialect dialect) throws Exception {
    Database db = databases.open(databases.config(dialect));
    IdempotencyKeys keys = backlogOfTwoSlicesAndFive(db);
    now = now.plus(Duration.ofHours(1));
    keys.finish((IdempotencyKeys.Owner) keys.begin("key:t", "fresh", "fp", now),
        new JobResult(200, Map.of(), "{}".getBytes(StandardCharsets.UTF_8)));
    now = now.plus(TTL).minus(Duration.ofHours(1)).plusSeconds(1); // the backlog is past its TTL, "fresh" is not

    assertThat(keys.sweepAll(() -> 0L, Duration.ofSeconds(1))).isEqualTo(2 * IdempotencyKeys.SWEPT_KEYS + 5);
    assertThat(rows(db)).as("the key within its TTL").isEqualTo(1);
  }

  private static long rows(Database db) throws SQLException {
    try (Connection c = db.connection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM idempotency_keys")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static boolean keyed(Database db, String key) throws SQLException {
    try (Connection c = db.connection();
        var s = c.prepareStatement("SELECT 1 FROM idempotency_keys WHERE idem_key = ?")) {
      s.setString(1, key);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** Keys for {@code db}, holding two sweep slices of finished keys and five more, all keyed now. */
  private IdempotencyKeys backlogOfTwoSlicesAndFive(Database db) throws Exception {
    IdempotencyKeys keys = new IdempotencyKeys(db, wall, d -> now = now.plus(d), TTL, LEASE);
    JobResult answer = new JobResult(200, Map.of(), "{}".getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < 2 * IdempotencyKeys.SWEPT_KEYS + 5; i++) {
      keys.finish((IdempotencyKeys.Owner) keys.begin("key:t", "k-" + i, "fp-" + i, now), answer);
    }
    return keys;
  }
}
