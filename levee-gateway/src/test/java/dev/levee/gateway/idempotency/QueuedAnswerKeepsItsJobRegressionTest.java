package dev.levee.gateway.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.Job;
import dev.levee.gateway.jobs.JobRequest;
import dev.levee.gateway.jobs.JobResult;
import dev.levee.gateway.jobs.JobStore;
import dev.levee.gateway.jobs.NewJob;
import dev.levee.gateway.jobs.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Newcomer trial, bug 1: a request with an {@code idempotency-key} that was queued on an outage
 * (503, {@code x-levee-job}) freed its key, so the client's retry — which the 503's {@code
 * retry-after} invites — queued a second job and the upstream generated twice. Now the queued
 * answer is kept under the key: the retry gets the same queued answer while the job waits, the
 * job's own answer once it ended, and a key whose job expired unanswered is free again. Both
 * databases, on a virtual wall clock.
 */
class QueuedAnswerKeepsItsJobRegressionTest {

  private Instant now = Instant.parse("2026-01-01T00:00:00Z");
  private final InstantSource wall = () -> now;
  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  private static JobResult queuedAnswer(String job) {
    return new JobResult(503, Map.of("content-type", List.of("application/json"), "retry-after", List.of("35"),
        "x-levee-job", List.of(job)), ("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"job_id\":\""
        + job + "\"}}").getBytes(StandardCharsets.UTF_8));
  }

  private String enqueue(JobStore jobs, String tenant) {
    return jobs.enqueue(new NewJob(tenant, "default", "good", 5, null,
        new JobRequest("/v1/messages", null, Map.of(), "{}".getBytes(StandardCharsets.UTF_8)), null),
        now, now.plus(Duration.ofHours(24)));
  }

  private static String text(JobResult result) {
    return new String(result.body(), StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aRetryOfAQueuedRequestRefersToItsJobInsteadOfQueueingAnother(Database.Dialect dialect) throws Exception {
    Database db = databases.fresh(dialect);
    JobStore jobs = new JobStore(db);
    IdempotencyKeys keys = new IdempotencyKeys(db, wall, d -> now = now.plus(d), Duration.ofHours(24),
        Duration.ofSeconds(60)).withJobs(jobs);
    String job = enqueue(jobs, "key:a");
    keys.finish((IdempotencyKeys.Owner) keys.begin("key:a", "k2", "fp", now), queuedAnswer(job));

    IdempotencyKeys.Claim whileQueued = keys.begin("key:a", "k2", "fp", now);
    assertThat(whileQueued).as("the same queued answer, not a new run").isInstanceOfSatisfying(
        IdempotencyKeys.Replay.class, r -> {
          assertThat(r.result().status()).isEqualTo(503);
          assertThat(r.result().headers().get("x-levee-job")).containsExactly(job);
        });

    Job claimed = jobs.claim(1, now, now.plusSeconds(900), Set.of(), Set.of()).getFirst();
    assertThat(keys.begin("key:a", "k2", "fp", now)).as("while it runs").isInstanceOfSatisfying(
        IdempotencyKeys.Replay.class, r -> assertThat(r.result().status()).isEqualTo(503));
    jobs.finish(claimed, new JobResult(200, Map.of("content-type", List.of("application/json")),
        "{\"type\":\"message\",\"id\":\"msg_1\"}".getBytes(StandardCharsets.UTF_8)), true, null, now);

    assertThat(keys.begin("key:a", "k2", "fp", now)).as("done: the job's answer").isInstanceOfSatisfying(
        IdempotencyKeys.Replay.class, r -> {
          assertThat(r.result().status()).isEqualTo(200);
          assertThat(text(r.result())).isEqualTo("{\"type\":\"message\",\"id\":\"msg_1\"}");
          assertThat(r.result().headers().get("x-levee-job")).containsExactly(job);
        });
    assertThat(keys.begin("key:a", "k2", "another body", now)).isInstanceOf(IdempotencyKeys.Mismatch.class);
    assertThat(keys.begin("key:b", "k2", "fp", now)).as("keys are per tenant").isInstanceOf(IdempotencyKeys.Owner.class);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aKeyWhoseJobExpiredUnansweredIsFreeAgain(Database.Dialect dialect) throws Exception {
    Database db = databases.fresh(dialect);
    JobStore jobs = new JobStore(db);
    IdempotencyKeys keys = new IdempotencyKeys(db, wall, d -> now = now.plus(d), Duration.ofHours(48),
        Duration.ofSeconds(60)).withJobs(jobs);
    String job = enqueue(jobs, "key:a");
    keys.finish((IdempotencyKeys.Owner) keys.begin("key:a", "k3", "fp", now), queuedAnswer(job));

    now = now.plus(Duration.ofHours(25));
    jobs.expire(now);

    assertThat(keys.begin("key:a", "k3", "fp", now)).isInstanceOf(IdempotencyKeys.Owner.class);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void anUnqueued503StillFreesTheKey(Database.Dialect dialect) throws Exception {
    Database db = databases.fresh(dialect);
    IdempotencyKeys keys = new IdempotencyKeys(db, wall, d -> now = now.plus(d), Duration.ofHours(24),
        Duration.ofSeconds(60)).withJobs(new JobStore(db));
    keys.finish((IdempotencyKeys.Owner) keys.begin("key:a", "k4", "fp", now),
        new JobResult(503, Map.of(), "{}".getBytes(StandardCharsets.UTF_8)));

    assertThat(keys.begin("key:a", "k4", "fp", now)).isInstanceOf(IdempotencyKeys.Owner.class);
  }
}
