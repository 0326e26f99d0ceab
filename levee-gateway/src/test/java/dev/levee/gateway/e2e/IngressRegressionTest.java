package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Regressions of the ingress stage, each named for the bug it fixed. */
class IngressRegressionTest {

  private static final Map<String, String> JSON = Map.of("x-api-key", "k", "content-type", "application/json");
  /** How long the client waits for an answer before it calls the gateway hung: a bound, not a latency. */
  private static final Duration HANG = Duration.ofMinutes(6);

  /**
   * Regression: a 21 MB string (a base64 document) or deep nesting got Jetty's HTML 500. What is
   * tested is the answer, not how fast it comes: moving 21 MB through the gateway and the emulator
   * in a cold JVM on a loaded box took longer than the base policy's 5 s attempt timeout (the
   * upstream's head deadline is on the real clock), three times, and got a 504 (or outlasted the
   * client's 20 s); the policy here gives each attempt minutes.
   */
  @Test
  void aLongStringOrDeepNestingWithinTheLimitIsServed() throws Exception {
    String unhurried = Harness.BASE_POLICY.replace("deadline: 10s", "deadline: 5m")
        .replace("attempt-timeout: 5s", "attempt-timeout: 4m");
    assertThat(unhurried).contains("deadline: 5m", "attempt-timeout: 4m");
    try (Harness h = Harness.start(unhurried)) {
      String document = "{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\""
          + "A".repeat(21_000_000) + "\"}]}";
      String nested = "{\"model\":\"emu-ok\",\"max_tokens\":5,\"metadata_x\":" + "[".repeat(1500) + "]".repeat(1500)
          + ",\"messages\":[{\"role\":\"user\",\"content\":\"deep\"}]}";

      assertThat(h.post("/v1/messages", document, JSON, HANG).statusCode()).isEqualTo(200);
      assertThat(h.post("/v1/messages", nested, JSON, HANG).statusCode()).isEqualTo(200);
    }
  }

  /** Regression: an empty model created a target named "emu/" and broke /health until restart. */
  @Test
  void anEmptyModelIsRefusedAndHealthStaysReadable() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      HttpResponse<String> refused = h.post("/v1/messages",
          "{\"model\":\"\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", JSON);

      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(Json.tryParse(refused.body()).path("error").path("message").asText()).startsWith("model:");
      assertThat(h.get("/health").statusCode()).isEqualTo(200);
      assertThat(h.emulator.log()).isEmpty();
    }
  }
}
