package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression: a request whose every target was cooling after a rate limit sat out the first
 * target's cooldown whenever the deadline held it, however long: with a 10-minute deadline a
 * 120 s cooldown held the request 120 s, although {@code policy.retry.max-retry-after} (30 s here)
 * says a stated wait that long is not waited out (a 429 met during the request is not). A cooldown
 * longer than {@code max-retry-after} is now refused at once with 429 and its {@code retry-after},
 * and a ready fallback still answers. Virtual time: the gateway's sleeper advances the clock, so
 * a wait sat out shows as time passed.
 */
class CooldownLongerThanMaxRetryAfterRegressionTest {

  private static final Map<String, String> JSON = Map.of("x-api-key", "k", "content-type", "application/json");

  private static final String CONFIG = """
      models:
        single:
          chain: [emu/emu-429-seq-120]
        pair:
          chain: [emu/emu-429-seq-120, emu/emu-429-seq-90]
      policy:
        deadline: 10m
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 0, max-retry-after: 30s }
      """;

  private static String body(String model, String prompt) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt
        + "\"}]}";
  }

  private static Harness start(ManualClock clock) throws Exception {
    return Harness.start(VirtualTime.emulator(clock).build(), CONFIG, "", VirtualTime.gateway(clock, 5));
  }

  @Test
  void aCooldownLongerThanMaxRetryAfterIsRefusedAtOnceNotSatOut() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = start(clock)) {
      HttpResponse<String> limited = h.post("/v1/messages", body("single", "cool it"), JSON);
      assertThat(limited.statusCode()).as("the 120 s wait is not sat out: the client sees the 429").isEqualTo(429);
      assertThat(h.attempts("emu-429-seq-120")).hasSize(1);

      long start = clock.nanos();
      HttpResponse<String> cooling = h.post("/v1/messages", body("single", "cool it"), JSON);
      Duration took = Duration.ofNanos(clock.nanos() - start);

      assertThat(took).as("no cooldown sat out").isLessThan(Duration.ofSeconds(30));
      assertThat(cooling.statusCode()).as(cooling.body()).isEqualTo(429);
      assertThat(Json.tryParse(cooling.body()).path("error").path("type").asText()).isEqualTo("rate_limit_error");
      assertThat(Integer.parseInt(cooling.headers().firstValue("retry-after").orElseThrow())).isBetween(119, 120);
      assertThat(cooling.headers().firstValue("x-should-retry")).hasValue("false");
      assertThat(h.attempts("emu-429-seq-120")).as("the cooling target not called").hasSize(1);
    }
  }

  @Test
  void whenEveryTargetCoolsLongerThanMaxRetryAfterTheRequestFailsFastAndAReadyFallbackStillAnswers()
      throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = start(clock)) {
      HttpResponse<String> limited = h.post("/v1/messages", body("pair", "both"), JSON);
      assertThat(limited.statusCode()).as("both 429: 120 s and 90 s are not sat out").isEqualTo(429);

      long start = clock.nanos();
      HttpResponse<String> cooling = h.post("/v1/messages", body("pair", "both"), JSON);

      assertThat(Duration.ofNanos(clock.nanos() - start)).as("the fallback's 90 s not sat out either")
          .isLessThan(Duration.ofSeconds(30));
      assertThat(cooling.statusCode()).isEqualTo(429);
      assertThat(Integer.parseInt(cooling.headers().firstValue("retry-after").orElseThrow())).isBetween(89, 90);
      assertThat(h.attempts("emu-429-seq-120")).hasSize(1);
      assertThat(h.attempts("emu-429-seq-90")).hasSize(1);

      clock.advance(Duration.ofSeconds(91)); // the fallback is ready again; the primary cools 29 s more
      HttpResponse<String> fallback = h.post("/v1/messages", body("pair", "both"), JSON);

      assertThat(fallback.statusCode()).as(fallback.body()).isEqualTo(200);
      assertThat(fallback.headers().firstValue("x-levee-model")).hasValue("emu/emu-429-seq-90");
      assertThat(h.attempts("emu-429-seq-120")).as("the cooling primary skipped").hasSize(1);
    }
  }
}
