package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.batches.BatchStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The job store on both databases it supports: given jobs stored at fixed instants, when workers
 * claim, crash, recover and finish, then each job is claimed by one worker at a time and ends
 * with exactly one result.
 */
class JobStoreTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant FAR = T0.plus(Duration.ofHours(24));

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  private JobStore store(QueueConfig config) {
    return new JobStore(databases.open(config));
  }

  private JobStore fresh(Database.Dialect dialect) {
    return store(databases.config(dialect));
  }

  private static NewJob job(String tenant, int priority, String text) {
    return new NewJob(tenant, "default", "emu-ok", priority, null,
        new JobRequest("/v1/messages", null, Map.of("anthropic-version", List.of("2023-06-01")),
            ("{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}")
                .getBytes(StandardCharsets.UTF_8)), null);
  }

  private static JobResult ok(String text) {
    return new JobResult(200, Map.of("content-type", List.of("application/json")), text.getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aTrialClaimTakesTheFirstReadyJobOfItsAliasOnlyAndStillHonoursFeatureHolds(Database.Dialect dialect) {
    JobStore store = fresh(dialect);
    NewJob other = job("t", 9, "other");
    String otherId = store.enqueue(new NewJob("t", "default", "smart", 9, null, other.request(), null), T0, FAR);
    String low = store.enqueue(job("t", 1, "a"), T0.plusMillis(1), FAR);
    String high = store.enqueue(job("t", 5, "b"), T0.plusMillis(2), FAR);

    List<Job> trial = store.claimOf(Set.of("emu-ok"), 1, T0.plusSeconds(1), T0.plusSeconds(60), Set.of(), Set.of());
    List<Job> heldByFeature = store.claimOf(Set.of("emu-ok"), 1, T0.plusSeconds(1), T0.plusSeconds(60), Set.of("default"),
        Set.of());

    assertThat(trial).extracting(Job::id).containsExactly(high);
    assertThat(heldByFeature).isEmpty();
    assertThat(store.job("t", low).orElseThrow().state()).isEqualTo(JobState.QUEUED);
    assertThat(store.job("t", otherId).orElseThrow().state()).as("another alias's job, though first in line")
        .isEqualTo(JobState.QUEUED);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void drainsByPriorityThenAge(Database.Dialect dialect) {
    JobStore store = fresh(dialect);
    String oldLow = store.enqueue(job("t", 1, "a"), T0, FAR);
    String oldHigh = store.enqueue(job("t", 9, "b"), T0.plusMillis(1), FAR);
    String newHigh = store.enqueue(job("t", 9, "c"), T0.plusMillis(2), FAR);
    String mid = store.enqueue(job("t", 5, "d"), T0.plusMillis(3), FAR);

    List<Job> first = store.claim(3, T0.plusSeconds(1), T0.plusSeconds(60), Set.of(), Set.of());
    List<Job> rest = store.claim(3, T0.plusSeconds(1), T0.plusSeconds(60), Set.of(), Set.of());

    assertThat(first).extracting(Job::id).containsExactly(oldHigh, newHigh, mid);
    assertThat(rest).extracting(Job::id).containsExactly(oldLow);
    assertThat(first).allSatisfy(j -> assertThat(j.state()).isEqualTo(JobState.RUNNING));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void pausedAliasesAndFeaturesWait(Database.Dialect dialect) {
    JobStore store = fresh(dialect);
    NewJob other = new NewJob("t", "nightly", "smart", 5, null, job("t", 5, "x").request(), null);
    String plain = store.enqueue(job("t", 5, "a"), T0, FAR);
    String nightly = store.enqueue(other, T0, FAR);

    assertThat(store.claim(10, T0, FAR, Set.of("emu-ok"), Set.of("nightly"))).isEmpty();
    assertThat(store.claim(10, T0, FAR, Set.of("emu-ok"), Set.of())).extracting(Job::id).containsExactly(nightly);
    assertThat(store.claim(10, T0, FAR, Set.of(), Set.of())).extracting(Job::id).containsExactly(plain);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void concurrentWorkersNeverClaimOneJobTwice(Database.Dialect dialect) throws Exception {
    JobStore store = fresh(dialect);
    for (int i = 0; i < 200; i++) {
      store.enqueue(job("t", i % 10, "n" + i), T0.plusMillis(i), FAR);
    }
    List<String> claimed = Collections.synchronizedList(new ArrayList<>());
    Callable<Void> worker = () -> {
      List<Job> got;
      while (!(got = store.claim(3, T0.plusSeconds(1), FAR, Set.of(), Set.of())).isEmpty()) {
        got.forEach(j -> claimed.add(j.id()));
      }
      return null;
    };
    try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
      List<Future<Void>> futures = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        futures.add(pool.submit(worker));
      }
      for (Future<Void> f : futures) {
        f.get();
      }
    }
    assertThat(claimed).hasSize(200);
    assertThat(new HashSet<>(claimed)).hasSize(200);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void jobsRunningAtACrashRunAgainAndRecordOneResult(Database.Dialect dialect) {
    QueueConfig config = databases.config(dialect);
    JobStore before = store(config);
    for (int i = 0; i < 5; i++) {
      before.enqueue(job("t", 5, "n" + i), T0.plusMillis(i), FAR);
    }
    Instant lease = T0.plusSeconds(60);
    List<Job> running = before.claim(3, T0.plusSeconds(1), lease, Set.of(), Set.of());
    assertThat(running).hasSize(3);
    before.finish(running.get(0), ok("done-before"), true, null, T0.plusSeconds(1));
    databases.crash(before.database()); // the crash: two jobs left running, two queued

    JobStore after = store(config);
    boolean embedded = dialect == Database.Dialect.SQLITE;
    Instant restart = embedded ? T0.plusSeconds(2) : lease; // PostgreSQL waits for the lease: replicas may hold it
    assertThat(after.recover(restart, embedded)).isEqualTo(2);
    List<Job> again = after.claim(10, restart, restart.plusSeconds(60), Set.of(), Set.of());

    assertThat(again).hasSize(4);
    Job rerun = again.stream().filter(j -> j.id().equals(running.get(1).id())).findFirst().orElseThrow();
    assertThat(rerun.attempts()).isEqualTo(2);
    assertThat(after.finish(running.get(1), ok("stale"), true, null, restart)).as("the crashed claim").isFalse();
    assertThat(after.finish(rerun, ok("fresh"), true, null, restart)).isTrue();
    assertThat(after.finish(rerun, ok("twice"), true, null, restart)).as("a second result").isFalse();
    Job done = after.job("t", rerun.id()).orElseThrow();
    assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(new String(done.result().body(), StandardCharsets.UTF_8)).isEqualTo("fresh");
    assertThat(after.job("t", running.get(0).id()).orElseThrow().attempts()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aSealedKeyIsErasedWhenTheJobEnds(Database.Dialect dialect) {
    JobStore store = fresh(dialect);
    KeySeal seal = KeySeal.of(TestStores.SECRET);
    NewJob withKey = new NewJob("t", "default", "emu-ok", 5, null, job("t", 5, "k").request(), seal.seal("sk-secret"));
    String id = store.enqueue(withKey, T0, FAR);
    Job claimed = store.claim(1, T0, FAR, Set.of(), Set.of()).getFirst();
    assertThat(seal.open(claimed.sealedKey())).isEqualTo("sk-secret");
    assertThat(new String(claimed.sealedKey(), StandardCharsets.ISO_8859_1)).doesNotContain("sk-secret");

    store.finish(claimed, ok("{}"), true, null, T0);

    assertThat(store.job("t", id).orElseThrow().sealedKey()).isNull();
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void queuedJobsPastTheirExpiryEndExpired(Database.Dialect dialect) {
    JobStore store = fresh(dialect);
    String soon = store.enqueue(job("t", 5, "a"), T0, T0.plusSeconds(10));
    String later = store.enqueue(job("t", 5, "b"), T0, FAR);

    assertThat(store.expire(T0.plusSeconds(10))).isEqualTo(1);

    assertThat(store.job("t", soon).orElseThrow().state()).isEqualTo(JobState.EXPIRED);
    assertThat(store.job("t", later).orElseThrow().state()).isEqualTo(JobState.QUEUED);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void anotherTenantSeesNoJobOrBatch(Database.Dialect dialect) {
    JobStore store = fresh(dialect);
    BatchStore batches = new BatchStore(store);
    String job = store.enqueue(job("key:aaa", 5, "a"), T0, FAR);
    String batch = batches.create("key:aaa", List.of(job("key:aaa", 5, "b")), T0, FAR);

    assertThat(store.job("key:bbb", job)).isEmpty();
    assertThat(batches.get("key:bbb", batch)).isEmpty();
    assertThat(batches.cancel("key:bbb", batch, T0)).isEmpty();
    assertThat(batches.delete("key:bbb", batch)).isFalse();
    assertThat(batches.list("key:bbb", 10, null, null)).isEmpty();
    assertThat(batches.get("key:aaa", batch)).isPresent();
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void cancellingABatchEndsItsQueuedRequestsAndKeepsRunningOnes(Database.Dialect dialect) {
    JobStore store = fresh(dialect);
    BatchStore batches = new BatchStore(store);
    String id = batches.create("t", List.of(job("t", 5, "a"), job("t", 5, "b"), job("t", 5, "c")), T0, FAR);
    Job running = store.claim(1, T0, FAR, Set.of(), Set.of()).getFirst();

    assertThat(batches.cancel("t", id, T0.plusSeconds(1)).orElseThrow().processingStatus()).isEqualTo("canceling");
    assertThat(store.finish(running, ok("{}"), true, null, T0.plusSeconds(2))).isTrue();

    var ended = batches.get("t", id).orElseThrow();
    assertThat(ended.processingStatus()).isEqualTo("ended");
    assertThat(ended.counts()).isEqualTo(new dev.levee.gateway.batches.Batch.Counts(0, 1, 0, 2, 0));
    assertThat(ended.endedAt()).isEqualTo(T0.plusSeconds(2));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aBatchsJobsAreReadInRequestOrderPageByPage(Database.Dialect dialect) {
    JobStore store = fresh(dialect);
    BatchStore batches = new BatchStore(store);
    List<NewJob> requests = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      requests.add(new NewJob("t", "default", "emu-ok", 5, "c" + i, job("t", 5, "n" + i).request(), null));
    }
    String id = batches.create("t", requests, T0, FAR);

    assertThat(store.batchJobs(id, 0, 2)).extracting(Job::customId).containsExactly("c0", "c1");
    assertThat(store.batchJobs(id, 2, 2)).extracting(Job::customId).containsExactly("c2", "c3");
    assertThat(store.batchJobs(id, 4, 2)).extracting(Job::customId).containsExactly("c4");
  }
}
