package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.Headers;
import com.anthropic.errors.AnthropicServiceException;
import dev.levee.core.tier.Tier;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The headers of an "every target failed" answer at T2 (models-api item 4): {@code x-levee-tier:
 * T2}, {@code x-levee-cache: miss} (the T2 lookup found nothing, so the request went upstream),
 * {@code x-levee-degraded} (what the tier changed in the request that failed), {@code
 * x-levee-reason} (how each target ended: here {@code circuit open (N s left)}), {@code
 * retry-after} (when the circuit admits a trial: RFC 9110's "how long the service is expected to
 * be unavailable") and {@code x-should-retry: false} (Levee retried already: DESIGN.md promise 2).
 * These agree: the official SDKs read {@code x-should-retry} first and never wait {@code
 * retry-after} when it says false, so an SDK whose own retries are on still sends the request
 * once; {@code retry-after} is for whoever decides later whether to ask again (an application, a
 * job runner, a person). Checked here with the Java SDK and its retries on.
 */
class AllFailedAtT2IsFinalForTheSdkTest {

  private static final String CONFIG = """
      models:
        pair: { chain: [emu/emu-503, emu/emu-529] }
      policy:
        deadline: 10s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 0 }
        breaker: { failures: 1, window: 60s, open-for: 30s }
      """;

  @Test
  void theSdkWithItsRetriesOnSendsTheRequestOnceAndSeesWhenToComeBack() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      AnthropicClient retrying = AnthropicOkHttpClient.builder().baseUrl(h.gateway.baseUrl().toString())
          .apiKey("sk-test-client-key").maxRetries(2).timeout(Duration.ofSeconds(20)).build();
      try {
        openTheCircuitThenAsk(h, retrying);
      } finally {
        retrying.close();
      }
    }
  }

  private static void openTheCircuitThenAsk(Harness h, AnthropicClient retrying) throws Exception {
    h.gateway.tiers().controller("default").force(Tier.T2, Duration.ofMinutes(5));
    assertThat(h.post("/v1/messages", "{\"model\":\"pair\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\","
        + "\"content\":\"open it\"}]}", Map.of("x-api-key", "k")).statusCode())
        .as("the reduced target's 529, then its fallback's 503: both circuits open").isEqualTo(503);

    assertThatThrownBy(() -> retrying.messages().create(Harness.params("pair", "and now?")))
        .isInstanceOfSatisfying(AnthropicServiceException.class, e -> {
          assertThat(e.statusCode()).isEqualTo(503);
          Headers headers = e.headers();
          assertThat(headers.values("x-should-retry")).containsExactly("false");
          assertThat(headers.values("x-levee-tier")).containsExactly("T2");
          assertThat(headers.values("x-levee-cache")).containsExactly("miss");
          assertThat(headers.values("x-levee-degraded")).singleElement().asString().startsWith("T2: ");
          String seconds = headers.values("retry-after").getFirst();
          assertThat(headers.values("x-levee-reason")).singleElement().asString()
              .contains("emu/emu-529: circuit open (" + seconds + " s left)").contains("emu/emu-503: circuit open (");
        });

    String once = "levee_requests_total{endpoint=\"messages\",outcome=\"exhausted\",tier=\"T2\"} 2.0";
    assertThat(h.awaitMetrics(once)).as("the opener and the SDK's one request: no retry stacked on Levee's")
        .contains(once);
  }
}
