package dev.levee.gateway.batches;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Regression (tester): cancelling a Message Batch that had already ended answered 200 with {@code
 * cancel_initiated_at} set after {@code ended_at}, so a batch that ended on its own read as
 * cancelled. Anthropic's docs: "Batches may be canceled any time before processing ends", and
 * {@code cancel_initiated_at} is "Specified only if cancellation was initiated". Cancelling an ended
 * batch now changes nothing and answers the batch as it was. Time is the instants the test passes
 * in, on both stores.
 */
@Tag("regression")
class CancelEndedBatchRegressionTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant FAR = T0.plus(Duration.ofHours(24));

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  private static NewJob request(String customId) {
    return new NewJob("t", "default", "emu-ok", 5, customId, new JobRequest("/v1/messages", null,
        Map.of("anthropic-version", List.of("2023-06-01")),
        "{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[]}".getBytes(StandardCharsets.UTF_8)), null);
  }

  private static JobResult ok() {
    return new JobResult(200, Map.of("content-type", List.of("application/json")),
        "{}".getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void cancellingABatchThatEndedOnItsOwnChangesNothing(Database.Dialect dialect) {
    JobStore jobs = new JobStore(databases.fresh(dialect));
    BatchStore batches = new BatchStore(jobs);
    String id = batches.create("t", List.of(request("a"), request("b")), T0, FAR);
    List<Job> claimed = jobs.claim(2, T0.plusSeconds(1), FAR, Set.of(), Set.of());
    jobs.finish(claimed.get(0), ok(), true, null, T0.plusSeconds(2));
    jobs.finish(claimed.get(1), ok(), true, null, T0.plusSeconds(3));
    Batch ended = batches.get("t", id).orElseThrow();

    Batch answered = batches.cancel("t", id, T0.plusSeconds(10)).orElseThrow();

    assertThat(ended.processingStatus()).isEqualTo("ended");
    assertThat(answered).as("the batch as it was").isEqualTo(ended);
    assertThat(answered.cancelInitiatedAt()).isNull();
    assertThat(batches.get("t", id).orElseThrow()).as("and as it stays").isEqualTo(ended);
    ObjectNode json = BatchJson.batch(answered, "https://levee.example/results");
    assertThat(json.get("processing_status").asText()).isEqualTo("ended");
    assertThat(json.get("cancel_initiated_at").isNull()).isTrue();
    assertThat(json.get("ended_at").asText()).isEqualTo("2026-01-01T00:00:03Z");
    assertThat(json.at("/request_counts/succeeded").asLong()).isEqualTo(2);
    assertThat(json.at("/request_counts/canceled").asLong()).isZero();
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void cancellingABatchThatExpiredChangesNothing(Database.Dialect dialect) {
    JobStore jobs = new JobStore(databases.fresh(dialect));
    BatchStore batches = new BatchStore(jobs);
    String id = batches.create("t", List.of(request("a")), T0, T0.plusSeconds(5));
    jobs.expire(T0.plusSeconds(5));
    Batch ended = batches.get("t", id).orElseThrow();

    Batch answered = batches.cancel("t", id, T0.plusSeconds(10)).orElseThrow();

    assertThat(ended.counts().expired()).isEqualTo(1);
    assertThat(answered).isEqualTo(ended);
    assertThat(answered.cancelInitiatedAt()).isNull();
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aCancelledBatchThatEndedKeepsItsFirstCancelTime(Database.Dialect dialect) {
    JobStore jobs = new JobStore(databases.fresh(dialect));
    BatchStore batches = new BatchStore(jobs);
    String id = batches.create("t", List.of(request("a")), T0, FAR);
    Batch cancelled = batches.cancel("t", id, T0.plusSeconds(1)).orElseThrow();

    Batch again = batches.cancel("t", id, T0.plusSeconds(10)).orElseThrow();

    assertThat(cancelled.processingStatus()).isEqualTo("ended");
    assertThat(again).isEqualTo(cancelled);
    assertThat(again.cancelInitiatedAt()).isEqualTo(T0.plusSeconds(1));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aBatchStillProcessingIsCancelledAsBefore(Database.Dialect dialect) {
    JobStore jobs = new JobStore(databases.fresh(dialect));
    BatchStore batches = new BatchStore(jobs);
    String id = batches.create("t", List.of(request("a"), request("b")), T0, FAR);
    jobs.claim(1, T0.plusSeconds(1), FAR, Set.of(), Set.of());

    Batch canceling = batches.cancel("t", id, T0.plusSeconds(2)).orElseThrow();

    assertThat(canceling.processingStatus()).isEqualTo("canceling");
    assertThat(canceling.cancelInitiatedAt()).isEqualTo(T0.plusSeconds(2));
    assertThat(canceling.counts().canceled()).isEqualTo(1);
  }
}
