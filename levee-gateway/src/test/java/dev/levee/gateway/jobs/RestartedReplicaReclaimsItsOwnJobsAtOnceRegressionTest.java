package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.gateway.config.ConfigLoader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A lone gateway on PostgreSQL restarted (a deploy, a crash) waited a whole lease — a minute with
 * the default {@code queue.lease} — before it ran again the jobs it had claimed before the
 * restart: on a shared store it could not tell its own earlier claims from a live replica's. With
 * {@code queue.replica-id} each claim records the replica, and at start-up a gateway queues again
 * at once what its previous process left {@code running} under its own id — and nothing another
 * replica holds.
 */
class RestartedReplicaReclaimsItsOwnJobsAtOnceRegressionTest {

  private final QueueConfig base = TestStores.postgres();
  private final QueueConfig config = new QueueConfig(base.store(), base.schema(), null, 4, Duration.ofMillis(20), null,
      null, null, base.secret(), null, null, null, null, "gw-1");
  private final List<Database> open = new ArrayList<>();
  private JobWorkers restarted;

  @AfterEach
  void cleanUp() {
    if (restarted != null) {
      restarted.close();
    }
    open.forEach(Database::close);
    TestStores.drop(config);
  }

  private JobStore store(String replicaId) {
    Database db = Database.open(config);
    open.add(db);
    return new JobStore(db, replicaId);
  }

  private static NewJob job(String text) {
    return new NewJob("t", "default", "emu-ok", 5, null, new JobRequest("/v1/messages", null, Map.of(),
        ("{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}")
            .getBytes(StandardCharsets.UTF_8)), null);
  }

  @Test
  void aRestartedReplicaRunsItsOwnEarlierClaimsAtOnceAndLeavesAnotherReplicasAlone() throws Exception {
    JobStore before = store("gw-1");
    Instant now = InstantSource.system().instant();
    for (int i = 0; i < 3; i++) {
      before.enqueue(job("n" + i), now.plusMillis(i), now.plusSeconds(3600));
    }
    Instant claimed = now.plusMillis(10); // every job ready
    Instant lease = claimed.plus(QueueConfig.DEFAULT_LEASE);
    List<Job> mine = before.claim(2, claimed, lease, Set.of(), Set.of());
    List<Job> theirs = store("gw-2").claim(1, claimed, lease, Set.of(), Set.of()); // a live replica's claim
    assertThat(mine).hasSize(2);
    assertThat(theirs).hasSize(1);
    open.remove(before.database());
    before.database().close(); // gw-1 stops with two jobs running

    Set<String> ran = ConcurrentHashMap.newKeySet();
    CountDownLatch both = new CountDownLatch(2);
    restarted = new JobWorkers(store("gw-1"), (request, key, lost, trial) -> {
      ran.add(new String(request.body(), StandardCharsets.UTF_8));
      both.countDown();
      return new JobExecutor.Finished(new JobResult(200, Map.of(), "{}".getBytes(StandardCharsets.UTF_8)));
    }, () -> PauseGate.Paused.NONE, KeySeal.of(config.secret()), InstantSource.system(), config).start();

    assertThat(both.await(10, TimeUnit.SECONDS)).as("its own earlier claims run again at once, not a lease later")
        .isTrue();
    assertThat(ran).hasSize(2).allSatisfy(body -> assertThat(body).doesNotContain("\"n2\""));
    JobStore reader = store("");
    for (Job job : mine) {
      assertThat(reader.job("t", job.id()).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
    }
    assertThat(reader.job("t", theirs.getFirst().id()).orElseThrow().state()).as("gw-2's claim is gw-2's")
        .isEqualTo(JobState.RUNNING);
  }

  @Test
  void theReplicaIdIsReadFromTheQueueSectionAndChecked() throws Exception {
    var parsed = new ConfigLoader().parse("""
        upstreams:
          emu: { url: "http://127.0.0.1:9" }
        queue:
          replica-id: gw-1
        """, "test.yaml");
    assertThat(parsed.queue().replicaId()).isEqualTo("gw-1");
    assertThat(QueueConfig.defaults().replicaId()).isEmpty();
    assertThatThrownBy(() -> new ConfigLoader().parse("""
        upstreams:
          emu: { url: "http://127.0.0.1:9" }
        queue:
          replica-id: "gw 1"
        """, "test.yaml")).hasMessageContaining("replica-id must be 1-128 characters");
  }
}
