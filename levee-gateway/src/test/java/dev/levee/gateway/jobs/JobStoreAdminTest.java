package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The operator's side of the store on both databases: given jobs of two tenants, two aliases and
 * two features stored at fixed instants, when an operator lists them (filtered, paged) and cancels
 * some (queued, running, ended, twice, unknown), then each page is the newest matching jobs in
 * order, and a cancelled job stays cancelled whatever its worker still does.
 */
class JobStoreAdminTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant FAR = T0.plus(Duration.ofHours(24));
  private static final JobStore.Filter ALL = new JobStore.Filter(Set.of(), null, null, null);

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  private static NewJob job(String tenant, String feature, String alias) {
    return new NewJob(tenant, feature, alias, 5, null, new JobRequest("/v1/messages", null,
        Map.of("anthropic-version", List.of("2023-06-01")),
        ("{\"model\":\"" + alias + "\",\"max_tokens\":5,\"messages\":[]}").getBytes(StandardCharsets.UTF_8)), null);
  }

  private static JobResult ok() {
    return new JobResult(200, Map.of("content-type", List.of("application/json")),
        "{\"type\":\"message\"}".getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void listsNewestFirstFilteredAndPagedWithoutBodies(Database.Dialect dialect) {
    JobStore store = new JobStore(databases.fresh(dialect));
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 7; i++) { // a-tenant's "smart" jobs in "reports", with one of b's "fast" in "chat" every third
      boolean other = i % 3 == 2;
      ids.add(store.enqueue(job(other ? "b" : "a", other ? "chat" : "reports", other ? "fast" : "smart"),
          T0.plusMillis(i), FAR));
    }
    Job running = store.claim(1, T0.plusSeconds(1), FAR, Set.of(), Set.of()).getFirst(); // the oldest: ids[0]

    JobStore.Page first = store.list(ALL, null, null, 3).orElseThrow();
    JobStore.Page second = store.list(ALL, first.jobs().getLast().id(), null, 3).orElseThrow();
    JobStore.Page last = store.list(ALL, second.jobs().getLast().id(), null, 3).orElseThrow();

    assertThat(first.jobs()).extracting(Job::id).containsExactly(ids.get(6), ids.get(5), ids.get(4));
    assertThat(second.jobs()).extracting(Job::id).containsExactly(ids.get(3), ids.get(2), ids.get(1));
    assertThat(last.jobs()).extracting(Job::id).containsExactly(ids.get(0));
    assertThat(List.of(first.hasMore(), second.hasMore(), last.hasMore())).containsExactly(true, true, false);
    assertThat(last.jobs().getFirst().state()).isEqualTo(JobState.RUNNING);
    assertThat(running.id()).isEqualTo(ids.get(0));
    assertThat(first.jobs().getFirst().request().body()).as("no bodies in a listing").isEmpty();

    assertThat(store.list(new JobStore.Filter(EnumSet.of(JobState.RUNNING), null, null, null), null, null, 10)
        .orElseThrow().jobs()).extracting(Job::id).containsExactly(ids.get(0));
    assertThat(store.list(new JobStore.Filter(Set.of(), "fast", null, null), null, null, 10).orElseThrow().jobs())
        .extracting(Job::id).containsExactly(ids.get(5), ids.get(2));
    assertThat(store.list(new JobStore.Filter(Set.of(), null, "b", null), null, null, 10).orElseThrow().jobs())
        .extracting(Job::id).containsExactly(ids.get(5), ids.get(2));
    assertThat(store.list(new JobStore.Filter(EnumSet.of(JobState.QUEUED), "smart", "a", "reports"), null, null, 10)
        .orElseThrow().jobs()).extracting(Job::id).containsExactly(ids.get(6), ids.get(4), ids.get(3), ids.get(1));
    assertThat(store.list(ALL, "job_00000000000000000000000000", null, 10)).as("an unknown cursor").isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aPageOfABatchsJobsStoredAtOneInstantHasNoGapsOrRepeats(Database.Dialect dialect) throws Exception {
    JobStore store = new JobStore(databases.fresh(dialect));
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(store.enqueue(job("a", "default", "smart"), T0, FAR)); // one created_at: the id breaks the tie
    }
    List<String> seen = new ArrayList<>();
    String after = null;
    JobStore.Page page;
    do {
      page = store.list(ALL, after, null, 2).orElseThrow();
      page.jobs().forEach(j -> seen.add(j.id()));
      after = page.jobs().isEmpty() ? null : page.jobs().getLast().id();
    } while (page.hasMore());

    assertThat(seen).containsExactlyInAnyOrderElementsOf(ids).doesNotHaveDuplicates();
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aCancelledJobStaysCancelledWhateverItsWorkerStillDoes(Database.Dialect dialect) {
    JobStore store = new JobStore(databases.fresh(dialect));
    String running = store.enqueue(job("a", "default", "smart"), T0, FAR);
    String done = store.enqueue(job("a", "default", "smart"), T0.plusMillis(1), FAR);
    List<Job> claimed = store.claim(2, T0.plusSeconds(1), T0.plusSeconds(61), Set.of(), Set.of());
    String queued = store.enqueue(job("a", "default", "smart"), T0.plusMillis(2), FAR);
    Job runningClaim = claimed.stream().filter(j -> j.id().equals(running)).findFirst().orElseThrow();
    Job doneClaim = claimed.stream().filter(j -> j.id().equals(done)).findFirst().orElseThrow();
    store.finish(doneClaim, ok(), true, null, T0.plusSeconds(2));

    JobStore.Cancel ofQueued = store.cancel(queued, T0.plusSeconds(3));
    JobStore.Cancel ofRunning = store.cancel(running, T0.plusSeconds(3));
    JobStore.Cancel again = store.cancel(queued, T0.plusSeconds(4));
    JobStore.Cancel ofEnded = store.cancel(done, T0.plusSeconds(3));
    JobStore.Cancel ofNone = store.cancel("job_00000000000000000000000000", T0.plusSeconds(3));

    assertThat(ofQueued.kind()).isEqualTo(JobStore.Cancel.Kind.CANCELLED);
    assertThat(ofQueued.was()).isEqualTo(JobState.QUEUED);
    assertThat(ofQueued.job().state()).isEqualTo(JobState.CANCELLED);
    assertThat(ofQueued.job().lastError()).startsWith("cancelled by an operator at 2026-01-01T00:00:03Z");
    assertThat(ofRunning.kind()).isEqualTo(JobStore.Cancel.Kind.CANCELLED);
    assertThat(ofRunning.was()).isEqualTo(JobState.RUNNING);
    assertThat(ofRunning.job().lastError()).contains("while try 1 ran");
    assertThat(again.kind()).as("idempotent").isEqualTo(JobStore.Cancel.Kind.ALREADY_CANCELLED);
    assertThat(again.job().lastError()).as("the first cancel's record stands").isEqualTo(ofQueued.job().lastError());
    assertThat(ofEnded.kind()).isEqualTo(JobStore.Cancel.Kind.ENDED);
    assertThat(ofEnded.job().state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(ofNone.kind()).isEqualTo(JobStore.Cancel.Kind.NOT_FOUND);

    // the running try ends after the cancel: nothing it returns is kept, and no recovery revives it
    assertThat(store.finish(runningClaim, ok(), true, null, T0.plusSeconds(5))).isFalse();
    assertThat(store.retryLater(runningClaim, "all failed", T0.plusSeconds(10), T0.plusSeconds(5))).isFalse();
    assertThat(store.renewHeld(List.of(runningClaim), T0.plusSeconds(70), T0.plusSeconds(5))).isEmpty();
    store.recover(T0.plusSeconds(3600), false);
    store.recover(T0.plusSeconds(3600), true);
    assertThat(store.claim(10, T0.plusSeconds(3600), FAR.plusSeconds(60), Set.of(), Set.of())).isEmpty();
    assertThat(store.job("a", running).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
    assertThat(store.job("a", running).orElseThrow().result()).isNull();
    assertThat(store.states(List.of(queued, running, done)))
        .containsExactlyInAnyOrderEntriesOf(Map.of(queued, JobState.CANCELLED, running, JobState.CANCELLED,
            done, JobState.SUCCEEDED));
  }
}
