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
 * Regression (siblings of {@link RetryAfterBeyondDeadlineReasonRegressionTest}): two more waits
 * too long to sit out left a target not retried in silence, {@code x-levee-reason} reading {@code
 * "… (1 call)"} as with {@code max-retries: 0}: a {@code retry-after} longer than {@code
 * max-retry-after}, and the backoff of a failure that stated no wait (a 529) when it did not fit in
 * the deadline's time left. Both now say the target was not retried and why. Virtual time: nothing
 * moves the clock, so the 5 s of the deadline are all left when the failure comes back; base and
 * max delay of 8 s make a 529's backoff exactly 8 s whatever the jitter draws.
 */
@Tag("regression")
class WaitTooLongReasonRegressionTest {

  private static final Map<String, String> JSON = Map.of("x-api-key", "k", "content-type", "application/json");

  private static final String CONFIG = """
      models:
        overmax: { chain: [emu/emu-429-ra120] }
        overloaded: { chain: [emu/emu-529, emu/emu-ok] }
      policy:
        deadline: 5s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 2, base-delay: 8s, max-delay: 8s, max-retry-after: 60s }
        breaker: off
      """;

  private static Harness start(ManualClock clock) throws Exception {
    return Harness.start(VirtualTime.emulator(clock).build(), CONFIG, "", VirtualTime.gateway(clock, 5));
  }

  @Test
  void anAllFailedAnswerSaysTheStatedWaitIsLongerThanMaxRetryAfter() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = start(clock)) {
      HttpResponse<String> limited = ask(h, "overmax");

      assertThat(limited.statusCode()).isEqualTo(429);
      assertThat(limited.headers().firstValue("x-levee-attempts")).hasValue("1");
      String reason = "emu/emu-429-ra120: 429 rate_limit_error "
          + "(1 call, then not retried: retry-after 120 s is longer than max-retry-after 60 s)";
      assertThat(limited.headers().firstValue("x-levee-reason")).hasValue(reason);
      assertThat(Json.tryParse(limited.body()).path("error").path("message").asText()).contains(reason);
      assertThat(limited.headers().firstValue("retry-after")).hasValue("120");
    }
  }

  @Test
  void anAnswerFromTheFallbackSaysTheBackoffDidNotFitTheDeadline() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = start(clock)) {
      long start = clock.nanos();

      HttpResponse<String> answered = ask(h, "overloaded");

      assertThat(Duration.ofNanos(clock.nanos() - start)).as("the 8 s backoff was not slept").isZero();
      assertThat(answered.statusCode()).as(answered.body()).isEqualTo(200);
      assertThat(answered.headers().firstValue("x-levee-fallback")).hasValue("true");
      assertThat(answered.headers().firstValue("x-levee-attempts")).hasValue("2");
      assertThat(answered.headers().firstValue("x-levee-reason")).hasValue("emu/emu-529: 529 overloaded_error "
          + "(1 call, then not retried: a backoff of 8000 ms and min-attempt-time 10 ms do not fit in the 5000 ms "
          + "left of the deadline); emu/emu-ok: answered");
    }
  }

  private static HttpResponse<String> ask(Harness h, String model) throws Exception {
    return h.post("/v1/messages", "{\"model\":\"" + model + "\",\"max_tokens\":16,\"messages\":"
        + "[{\"role\":\"user\",\"content\":\"wait for it\"}]}", JSON);
  }
}
