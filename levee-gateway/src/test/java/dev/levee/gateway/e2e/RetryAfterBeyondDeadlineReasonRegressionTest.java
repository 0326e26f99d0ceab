package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): an upstream that answered 429 with a {@code retry-after} within
 * {@code max-retry-after} but longer than the request's deadline had left was rightly not waited
 * for, but neither the all-failed answer nor the next target's answer said so: {@code
 * x-levee-reason} read {@code "… 429 rate_limit_error (1 call)"}, as with {@code max-retries: 0}.
 * It now says the target was not retried and why, as a retry the budget refused does. Virtual time:
 * nothing moves the clock, so 12 s of the deadline are left when the 429 comes back.
 */
@Tag("regression")
class RetryAfterBeyondDeadlineReasonRegressionTest {

  private static final Map<String, String> JSON = Map.of("x-api-key", "k", "content-type", "application/json");

  private static final String CONFIG = """
      models:
        single: { chain: [emu/emu-429-ra30] }
        pair: { chain: [emu/emu-429-ra40, emu/emu-ok] }
      policy:
        deadline: 12s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 2, max-retry-after: 60s }
        breaker: off
      """;

  private static Harness start(ManualClock clock) throws Exception {
    return Harness.start(VirtualTime.emulator(clock).build(), CONFIG, "", VirtualTime.gateway(clock, 5));
  }

  @Test
  void anAllFailedAnswerSaysTheStatedWaitDidNotFitTheDeadline() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = start(clock)) {
      long start = clock.nanos();

      HttpResponse<String> limited = ask(h, "single");

      assertThat(Duration.ofNanos(clock.nanos() - start)).as("the 30 s were not sat out")
          .isLessThan(Duration.ofSeconds(1));
      assertThat(limited.statusCode()).isEqualTo(429);
      assertThat(limited.headers().firstValue("x-levee-attempts")).hasValue("1");
      String reason = "emu/emu-429-ra30: 429 rate_limit_error "
          + "(1 call, then not retried: retry-after 30 s does not fit in the 12 s left of the deadline)";
      assertThat(limited.headers().firstValue("x-levee-reason")).hasValue(reason);
      assertThat(Json.tryParse(limited.body()).path("error").path("message").asText()).contains(reason);
      assertThat(limited.headers().firstValue("retry-after")).hasValue("30");
    }
  }

  @Test
  void anAnswerFromTheFallbackSaysWhyThePrimaryWasNotRetried() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = start(clock)) {
      HttpResponse<String> answered = ask(h, "pair");

      assertThat(answered.statusCode()).as(answered.body()).isEqualTo(200);
      assertThat(answered.headers().firstValue("x-levee-fallback")).hasValue("true");
      assertThat(answered.headers().firstValue("x-levee-attempts")).hasValue("2");
      assertThat(answered.headers().firstValue("x-levee-reason")).hasValue("emu/emu-429-ra40: 429 rate_limit_error "
          + "(1 call, then not retried: retry-after 40 s does not fit in the 12 s left of the deadline); "
          + "emu/emu-ok: answered");
    }
  }

  private static HttpResponse<String> ask(Harness h, String model) throws Exception {
    return h.post("/v1/messages", "{\"model\":\"" + model + "\",\"max_tokens\":16,\"messages\":"
        + "[{\"role\":\"user\",\"content\":\"wait for it\"}]}", JSON);
  }
}
