package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import dev.levee.gateway.GatewayClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, rate-limit cooldown: a 429's {@code retry-after} cools its target for every request,
 * never shortened by a later signal; each retry waits what the answer just received said; a
 * request whose only target cools past its deadline is refused at once with 429 and {@code
 * retry-after}.
 */
class RateLimitCooldownTest {

  private static final Map<String, String> JSON = Map.of("x-api-key", "k", "content-type", "application/json");

  private static String body(String model, String prompt) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
  }

  @Test
  void aPrimaryCoolingFor30sSendsTheNextRequestsStraightToTheFallbackAndAStragglerDoesNotShortenIt() throws Exception {
    String config = """
        models:
          limited:
            chain: [emu/emu-429-seq-30, emu/emu-ok]
        policy:
          deadline: 30s
          min-attempt-time: 10ms
          retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms, max-retry-after: 60s }
          retry-budget: { max: 100, ratio: 0.5 }
        """;
    try (Harness h = Harness.start(EmulatorOptions.defaults(), config)) {
      HttpResponse<String> first = h.post("/v1/messages", body("limited", "first"), JSON);
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.headers().firstValue("x-levee-model")).contains("emu/emu-ok"); // 30 s does not fit the 30 s deadline

      List<HttpResponse<String>> next = new ArrayList<>();
      try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
        List<Future<HttpResponse<String>>> inFlight = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          String prompt = "concurrent " + i;
          inFlight.add(pool.submit(() -> h.post("/v1/messages", body("limited", prompt), JSON)));
        }
        for (Future<HttpResponse<String>> f : inFlight) {
          next.add(f.get());
        }
      }
      assertThat(next).allSatisfy(r -> {
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("x-levee-model")).contains("emu/emu-ok");
        assertThat(r.headers().firstValue("x-levee-attempts")).contains("1");
      });
      assertThat(h.attempts("emu-429-seq-30")).hasSize(1);

      // a straggling 429 with retry-after 1 (from a request in flight before) does not shorten the cooldown
      Target primary = Target.parse("emu/emu-429-seq-30");
      h.gateway.tiers().onFailure(primary, new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error", "late",
          Optional.of(Duration.ofSeconds(1)), Optional.empty()), Duration.ZERO);
      HttpResponse<String> after = h.post("/v1/messages", body("limited", "after the straggler"), JSON);

      assertThat(after.headers().firstValue("x-levee-model")).contains("emu/emu-ok");
      assertThat(h.attempts("emu-429-seq-30")).hasSize(1);
      JsonNode health = Json.tryParse(h.get("/health").body());
      assertThat(health.path("target_health").path("emu/emu-429-seq-30").path("cooling_ms").asLong())
          .isGreaterThan(25_000);
      assertThat(metric(h.get("/metrics").body(), "levee_target_cooling_seconds", "target=\"emu/emu-429-seq-30\""))
          .isGreaterThan(25);
    }
  }

  @Test
  void eachRetryWaitsTheRetryAfterJustReceivedWithinA60sDeadline() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = sequenceHarness(clock, "60s")) {
      HttpResponse<String> answer = h.post("/v1/messages", body("seq", "patience"), JSON);

      assertThat(answer.statusCode()).isEqualTo(200);
      List<Long> startedAt = h.attempts("emu-429-seq-2-10-30").stream().map(LogEntry::atMs).toList();
      assertThat(startedAt).hasSize(4);
      assertThat(startedAt.get(0)).isLessThan(100);
      assertThat(startedAt.get(1)).isGreaterThanOrEqualTo(2_000).isLessThan(12_000);
      assertThat(startedAt.get(2)).isGreaterThanOrEqualTo(12_000).isLessThan(42_000);
      assertThat(startedAt.get(3)).isGreaterThanOrEqualTo(42_000).isLessThan(60_000);
    }
  }

  @Test
  void whenTheStatedWaitCannotFitA30sDeadlineTheClientGets429WithRetryAfterAtOnce() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = sequenceHarness(clock, "30s")) {
      long start = clock.nanos();
      HttpResponse<String> refused = h.post("/v1/messages", body("seq", "impatient"), JSON);
      Duration took = Duration.ofNanos(clock.nanos() - start);

      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("retry-after")).as("the last stated wait, not the first").contains("30");
      assertThat(h.attempts("emu-429-seq-2-10-30")).hasSize(3);
      assertThat(took).as("answered after the third 429, without sitting out its 30 s").isLessThan(Duration.ofSeconds(13));

      // the target now cools for 30 s: a new request is refused at once, without calling it
      HttpResponse<String> cooling = h.post("/v1/messages", body("seq", "another conversation"), JSON);

      assertThat(cooling.statusCode()).isEqualTo(429);
      assertThat(cooling.headers().firstValue("retry-after")).contains("30");
      assertThat(Json.tryParse(cooling.body()).path("error").path("type").asText()).isEqualTo("rate_limit_error");
      assertThat(h.attempts("emu-429-seq-2-10-30")).hasSize(3);
    }
  }

  @Test
  void aRequestWhoseOnlyTargetCoolsWaitsTheRemainingTimeWhenItFitsTheDeadline() throws Exception {
    ManualClock clock = new ManualClock();
    String config = """
        models:
          single:
            chain: [emu/emu-429-seq-5]
        policy:
          deadline: 30s
          min-attempt-time: 10ms
          retry: { max-retries: 0 }
        """;
    try (Harness h = Harness.start(virtualEmulator(clock), config, "", virtual(clock))) {
      HttpResponse<String> limited = h.post("/v1/messages", body("single", "wait for me"), JSON);
      assertThat(limited.statusCode()).isEqualTo(429); // no retries: the client sees the 429

      long start = clock.nanos();
      HttpResponse<String> waited = h.post("/v1/messages", body("single", "wait for me"), JSON);

      assertThat(waited.statusCode()).isEqualTo(200);
      assertThat(Duration.ofNanos(clock.nanos() - start)).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(6));
      assertThat(h.attempts("emu-429-seq-5")).extracting(LogEntry::atMs).last().satisfies(at -> assertThat(at).isGreaterThanOrEqualTo(5_000));
    }
  }

  /** The value of the first sample of {@code name} whose labels contain {@code label}. */
  static double metric(String scrape, String name, String label) {
    return scrape.lines().filter(l -> l.startsWith(name + "{") && l.contains(label)).findFirst()
        .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .orElseThrow(() -> new AssertionError("no " + name + " with " + label + " in /metrics"));
  }

  private static Harness sequenceHarness(ManualClock clock, String deadline) throws Exception {
    String config = """
        models:
          seq:
            chain: [emu/emu-429-seq-2-10-30]
        policy:
          deadline: %s
          min-attempt-time: 10ms
          retry: { max-retries: 3, base-delay: 10ms, max-delay: 50ms, max-retry-after: 60s }
          retry-budget: { max: 100, ratio: 0.5 }
        """.formatted(deadline);
    return Harness.start(virtualEmulator(clock), config, "", virtual(clock));
  }

  private static EmulatorOptions virtualEmulator(ManualClock clock) {
    return VirtualTime.emulator(clock).build();
  }

  private static GatewayClock virtual(ManualClock clock) {
    return VirtualTime.gateway(clock, 3);
  }
}
