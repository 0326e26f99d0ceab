package dev.levee.gateway.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.JobResult;
import dev.levee.gateway.jobs.QueueConfig;
import dev.levee.gateway.jobs.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Idempotency keys on both databases, on a virtual wall clock whose sleeper advances it. */
class IdempotencyKeysTest {

  private static final Duration TTL = Duration.ofHours(24);
  private static final Duration LEASE = Duration.ofSeconds(60);

  private Instant now = Instant.parse("2026-01-01T00:00:00Z");
  private final InstantSource wall = () -> now;
  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  private IdempotencyKeys keys(QueueConfig config) {
    return keys(databases.open(config));
  }

  private IdempotencyKeys keys(Database db) {
    return new IdempotencyKeys(db, wall, d -> now = now.plus(d), TTL, LEASE);
  }

  private QueueConfig config(Database.Dialect dialect) {
    return databases.config(dialect);
  }

  private static JobResult answer(int status, String body) {
    return new JobResult(status, Map.of("content-type", List.of("application/json")), body.getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void theSameKeyAndBodyGetTheFirstAnswerAgainEvenAfterARestart(Database.Dialect dialect) throws Exception {
    QueueConfig config = config(dialect);
    Database before = databases.open(config);
    IdempotencyKeys keys = keys(before);
    var owner = (IdempotencyKeys.Owner) keys.begin("key:a", "k1", "fp1", now);
    keys.finish(owner, answer(200, "{\"id\":\"msg_1\"}"));

    databases.crash(before); // the restart: the first process's store closes (an embedded one is held by one process)
    IdempotencyKeys restarted = keys(config);
    IdempotencyKeys.Claim again = restarted.begin("key:a", "k1", "fp1", now);

    assertThat(again).isInstanceOfSatisfying(IdempotencyKeys.Replay.class,
        r -> assertThat(new String(r.result().body(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"msg_1\"}"));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void theSameKeyWithAnotherBodyIsAMismatchAndKeysArePerTenant(Database.Dialect dialect) throws Exception {
    IdempotencyKeys keys = keys(config(dialect));
    keys.finish((IdempotencyKeys.Owner) keys.begin("key:a", "k1", "fp1", now), answer(200, "{}"));

    assertThat(keys.begin("key:a", "k1", "fp2", now)).isInstanceOf(IdempotencyKeys.Mismatch.class);
    assertThat(keys.begin("key:b", "k1", "fp2", now)).isInstanceOf(IdempotencyKeys.Owner.class);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aSecondRequestWaitsForTheFirstWithinItsDeadline(Database.Dialect dialect) throws Exception {
    IdempotencyKeys keys = keys(config(dialect));
    keys.begin("key:a", "k1", "fp1", now);
    Instant start = now;

    IdempotencyKeys.Claim waited = keys.begin("key:a", "k1", "fp1", start.plusSeconds(2));

    assertThat(waited).isInstanceOf(IdempotencyKeys.StillInFlight.class);
    assertThat(Duration.between(start, now)).isBetween(Duration.ofMillis(1500), Duration.ofSeconds(2));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void answersARetryCouldChangeAreNotKeptAndExpiredKeysAreFree(Database.Dialect dialect) throws Exception {
    IdempotencyKeys keys = keys(config(dialect));
    keys.finish((IdempotencyKeys.Owner) keys.begin("key:a", "k503", "fp", now), answer(503, "{}"));
    keys.finish((IdempotencyKeys.Owner) keys.begin("key:a", "k400", "fp", now), answer(400, "{}"));

    assertThat(keys.begin("key:a", "k503", "fp", now)).isInstanceOf(IdempotencyKeys.Owner.class);
    assertThat(keys.begin("key:a", "k400", "fp", now)).isInstanceOf(IdempotencyKeys.Replay.class);
    now = now.plus(TTL);
    assertThat(keys.begin("key:a", "k400", "other", now)).isInstanceOf(IdempotencyKeys.Owner.class);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aKeyWhoseOwnerDiedIsTakenOverAfterItsLease(Database.Dialect dialect) throws Exception {
    IdempotencyKeys keys = keys(config(dialect));
    keys.begin("key:a", "k1", "fp1", now); // never finished: its gateway died
    now = now.plus(LEASE);

    assertThat(keys.begin("key:a", "k1", "fp1", now)).isInstanceOf(IdempotencyKeys.Owner.class);
  }
}
