package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code levee_jobs{feature,state}} and the oldest queued job's age, from the store, on both databases. */
class JobMetricsTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  @RegisterExtension
  final TestDatabases databases = new TestDatabases();
  private final AtomicReference<Instant> now = new AtomicReference<>(T0);
  private final InstantSource wall = now::get;

  private static NewJob job(String feature) {
    return new NewJob("t", feature, "emu-ok", 5, null, new JobRequest("/v1/messages", null, Map.of(),
        "{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[]}".getBytes(StandardCharsets.UTF_8)), null);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void countsEachFeaturesJobsByStateAndTheOldestQueuedAge(Database.Dialect dialect) {
    QueueConfig config = databases.config(dialect);
    JobStore store = new JobStore(databases.open(config));
    Instant far = T0.plus(Duration.ofDays(1));
    store.enqueue(job("reports"), T0, far);
    store.enqueue(job("reports"), T0.plusSeconds(10), far);
    store.enqueue(job("chat"), T0.plusSeconds(20), far);
    Job done = store.claim(1, T0.plusSeconds(30), far, Set.of(), Set.of("reports")).getFirst(); // the chat job
    store.finish(done, new JobResult(200, Map.of(), new byte[0]), true, null, T0.plusSeconds(31));
    store.claim(1, T0.plusSeconds(30), far, Set.of(), Set.of()); // the older reports job runs
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    JobMetrics metrics = new JobMetrics(store, wall, Duration.ofSeconds(1));
    JobWorkers workers = new JobWorkers(store, (request, key, lost, trial) -> null, () -> PauseGate.Paused.NONE,
        KeySeal.of(config.secret()), wall, config);
    metrics.bindTo(registry, List.of("reports", "chat", "default"), workers);
    now.set(T0.plusSeconds(100));

    assertThat(gauge(registry, "reports", "queued")).isEqualTo(1);
    assertThat(gauge(registry, "reports", "running")).isEqualTo(1);
    assertThat(gauge(registry, "chat", "succeeded")).isEqualTo(1);
    assertThat(gauge(registry, "chat", "failed")).isZero();
    assertThat(gauge(registry, "default", "queued")).isZero();
    assertThat(registry.get("levee_jobs_oldest_queued_seconds").tag("feature", "reports").gauge().value())
        .as("the queued one was created at +10 s").isEqualTo(90.0);
    assertThat(registry.get("levee_jobs_oldest_queued_seconds").tag("feature", "chat").gauge().value()).isZero();

    store.enqueue(job("chat"), T0.plusSeconds(100), far);
    assertThat(gauge(registry, "chat", "queued")).as("read at most once per refresh").isZero();
    now.set(T0.plusSeconds(102));
    assertThat(gauge(registry, "chat", "queued")).isEqualTo(1);
  }

  private static double gauge(SimpleMeterRegistry registry, String feature, String state) {
    return registry.get("levee_jobs").tag("feature", feature).tag("state", state).gauge().value();
  }
}
