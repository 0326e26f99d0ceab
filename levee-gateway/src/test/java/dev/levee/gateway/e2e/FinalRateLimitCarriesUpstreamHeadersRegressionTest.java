package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression (tester, gateway on examples/local.yaml before {@code levee emulator}): when Levee gave
 * up on {@code emu-429-ra2-always} and answered 429 itself, the answer had Levee's {@code
 * retry-after} but none of the upstream's {@code anthropic-ratelimit-*} headers, which a client
 * paces on exactly then. Now a final 429 that an upstream's 429 decided carries that answer's {@code
 * anthropic-ratelimit-*} headers (and nothing else of it); {@code retry-after} stays Levee's; a
 * final status another answer decided carries none.
 *
 * <p>Virtual time: the gateway's waits before retries advance the clock instead of sleeping. The
 * emulator's {@code -limit-Nr} models answer with their own {@code requests-limit}, which tells
 * whose headers came through.
 */
@Tag("regression")
class FinalRateLimitCarriesUpstreamHeadersRegressionTest {

  private static final String KEY = "sk-test-never-echoed";

  private static final Map<String, String> JSON = Map.of("x-api-key", KEY, "content-type", "application/json");

  private static final List<String> BUCKETS = List.of("requests", "tokens", "input-tokens", "output-tokens");

  private static final String CONFIG = """
      models:
        single: { chain: [emu/emu-429-ra2-always] }
        streamed: { chain: [emu/emu-429-ra2-always-limit-50r] }
        both-limited: { chain: [emu/emu-429-ra2-always-limit-5r, emu/emu-429-ra7-always-limit-9r] }
        fallback-limited: { chain: [emu/emu-529-always, emu/emu-429-ra3-always-limit-11r] }
        overloaded-last: { chain: [emu/emu-429-ra2-always-limit-13r, emu/emu-529-always-limit-17r] }
      policy:
        deadline: 60s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 1, max-retry-after: 30s }
        breaker: off
      """;

  private static Harness start(ManualClock clock) throws Exception {
    return Harness.start(VirtualTime.emulator(clock).build(), CONFIG, "", VirtualTime.gateway(clock, 11));
  }

  @Test
  void aFinal429CarriesTheUpstreamsRateLimitHeadersAndLeveesRetryAfter() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = start(clock)) {
      HttpResponse<String> limited = ask(h, "single", false);

      assertThat(limited.statusCode()).as(limited.body()).isEqualTo(429);
      assertThat(limited.headers().firstValue("x-levee-attempts")).hasValue("2");
      assertThat(limited.headers().firstValue("retry-after")).hasValue("2");
      assertThat(limited.headers().firstValue("x-should-retry")).hasValue("false");
      for (String bucket : BUCKETS) {
        String prefix = "anthropic-ratelimit-" + bucket;
        assertThat(limited.headers().firstValue(prefix + "-limit")).as(prefix + "-limit").get()
            .matches(v -> v.matches("\\d+"));
        assertThat(limited.headers().firstValue(prefix + "-remaining")).as(prefix + "-remaining").get()
            .matches(v -> v.matches("\\d+"));
        assertThat(OffsetDateTime.parse(limited.headers().firstValue(prefix + "-reset").orElseThrow())).isNotNull();
      }
      assertThat(limited.headers().map().keySet()).as("nothing else of the upstream's answer, no key")
          .doesNotContain("x-api-key", "authorization", "retry-after-ms", "connection", "transfer-encoding");
      assertThat(limited.headers().allValues("x-levee-request-id")).hasSize(1);
      assertThat(limited.headers().firstValue("request-id")).as("Levee's own answer keeps Levee's id")
          .isEqualTo(limited.headers().firstValue("x-levee-request-id"));
    }
  }

  @Test
  void aStreamRefusedBeforeItsFirstByteCarriesThemToo() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = start(clock)) {
      HttpResponse<String> limited = ask(h, "streamed", true);

      assertThat(limited.statusCode()).as(limited.body()).isEqualTo(429);
      assertThat(limited.headers().firstValue("anthropic-ratelimit-requests-limit")).hasValue("50");
      assertThat(limited.headers().firstValue("anthropic-ratelimit-requests-remaining")).as("a 429 leaves none")
          .hasValue("0");
    }
  }

  @Test
  void theLastUpstream429DecidesWhoseHeadersWhileRetryAfterIsLevees() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = start(clock)) {
      HttpResponse<String> limited = ask(h, "both-limited", false);

      assertThat(limited.statusCode()).as(limited.body()).isEqualTo(429);
      assertThat(limited.headers().firstValue("x-levee-attempts")).hasValue("4");
      assertThat(limited.headers().firstValue("anthropic-ratelimit-requests-limit")).as("the last 429's")
          .hasValue("9");
      assertThat(limited.headers().firstValue("anthropic-ratelimit-requests-remaining")).as("a 429 leaves none")
          .hasValue("0");
      assertThat(limited.headers().firstValue("retry-after"))
          .as("Levee's: the earliest stated wait, not the last 429's 7").hasValue("2");
    }
  }

  @Test
  void aFallbacksFinal429CarriesTheFallbacksHeaders() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = start(clock)) {
      HttpResponse<String> limited = ask(h, "fallback-limited", false);

      assertThat(limited.statusCode()).as(limited.body()).isEqualTo(429);
      assertThat(limited.headers().firstValue("x-levee-model")).hasValue("emu/emu-429-ra3-always-limit-11r");
      assertThat(limited.headers().firstValue("anthropic-ratelimit-requests-limit")).hasValue("11");
      assertThat(limited.headers().firstValue("anthropic-ratelimit-requests-remaining")).as("a 429 leaves none")
          .hasValue("0");
    }
  }

  @Test
  void aFinalStatusThatIsNotTheUpstreamsRateLimitCarriesNone() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = start(clock)) {
      HttpResponse<String> overloaded = ask(h, "overloaded-last", false);

      assertThat(overloaded.statusCode()).as(overloaded.body()).isEqualTo(529);
      assertThat(h.attempts("emu-429-ra2-always-limit-13r")).as("a 429 was met on the way").isNotEmpty();
      assertThat(overloaded.headers().map().keySet()).as("the 529 decided the status, and is not a rate limit")
          .noneMatch(name -> name.startsWith("anthropic-ratelimit-"));
    }
  }

  private static HttpResponse<String> ask(Harness h, String model, boolean stream) throws Exception {
    return h.post("/v1/messages", "{\"model\":\"" + model + "\",\"max_tokens\":16,\"stream\":" + stream
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", JSON);
  }
}
