package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12 review): an operator's cancel of a running job was logged twice — "job …
 * was cancelled by an operator: stopping its run" when the run was stopped, then "job … ended here
 * after its claim was lost (queued again, taken over or cancelled)" when it ended — one event, two
 * lines, the second vaguer. And its {@code last_error} named the cancel's time with nanoseconds
 * ({@code 12:00:00.123456789Z}) where {@code created_at} and {@code expires_at} have milliseconds.
 */
class CancelledRunLoggedOnceRegressionTest {

  private static final Instant T0 = Instant.parse("2026-01-01T12:00:00Z");

  private final QueueConfig config = TestStores.sqlite();
  private final Database db = Database.open(config);
  private final JobStore store = new JobStore(db);
  private JobWorkers workers;

  @AfterEach
  void close() {
    if (workers != null) {
      workers.close();
    }
    db.close();
    TestStores.drop(config);
  }

  private String enqueue(Instant now) {
    JobRequest request = new JobRequest("/v1/messages", null, Map.of(),
        "{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[]}".getBytes(StandardCharsets.UTF_8));
    return store.enqueue(new NewJob("t", "default", "emu-ok", 5, null, request, null), now, now.plusSeconds(3600));
  }

  @Test
  void aRunningJobCancelledIsLoggedOnce() throws Exception {
    String id = enqueue(InstantSource.system().instant());
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    List<String> lines;
    try (LogLines log = LogLines.of(JobWorkers.class)) {
      workers = new JobWorkers(store, (request, key, lost, trial) -> {
        lost.register(stopped::countDown); // the upstream call, closed by the stop
        running.countDown();
        try {
          stopped.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return new JobExecutor.Finished(new JobResult(200, Map.of(), "{}".getBytes(StandardCharsets.UTF_8)));
      }, () -> PauseGate.Paused.NONE, KeySeal.of(config.secret()), InstantSource.system(), config).start();
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

      assertThat(store.cancel(id, InstantSource.system().instant()).kind()).isEqualTo(JobStore.Cancel.Kind.CANCELLED);
      assertThat(workers.stop(id)).isTrue();
      workers.close(); // waits for the stopped run to end
      lines = log.lines();
    }

    assertThat(lines.stream().filter(line -> line.contains(id))).as(String.join("\n", lines)).hasSize(1)
        .allMatch(line -> line.contains("cancelled by an operator"));
    assertThat(store.job("t", id).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
  }

  @Test
  void lastErrorNamesTheCancelsTimeInMillisecondsAsTheOtherTimes() {
    String id = enqueue(T0);

    Job cancelled = store.cancel(id, T0.plusNanos(123_456_789)).job();

    assertThat(cancelled.lastError()).startsWith("cancelled by an operator at 2026-01-01T12:00:00.123Z (");
    assertThat(cancelled.createdAt().toString()).isEqualTo("2026-01-01T12:00:00Z");
  }
}
