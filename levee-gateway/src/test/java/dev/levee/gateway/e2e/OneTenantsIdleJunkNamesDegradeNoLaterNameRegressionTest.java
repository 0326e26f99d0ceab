package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.GatewayClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (tenants sharing one process for weeks): one long-lived gateway on a manual clock
 * (tier evaluations once a virtual minute). Tenant {@code attacker} sends 100 invented model names,
 * each answered 529, and 25 more requests to {@code claude-z0}. Before: (b) the feature's tier
 * counted the invented names' scopes, so {@code /health} and {@code levee_tier} showed the whole
 * feature degraded while every configured alias was at T0; (a) client scopes were never dropped, so
 * an hour after the attack, when the junk had long gone quiet, every new name still shared the
 * {@code *} scope: tenant b's failing name stepped it down, and tenant c's first call to a healthy
 * name of its own was admitted below T0.
 */
class OneTenantsIdleJunkNamesDegradeNoLaterNameRegressionTest {

  private static final String CONFIG = """
      models:
        sick2: { chain: [emu/claude-3-opus] }
        ok2: { chain: [emu/claude-3-haiku] }
      tiers:
        evaluate-every: 30s
      policy:
        retry: { max-retries: 0 }
        breaker: off
      """;

  private final ManualClock clock = new ManualClock();

  @Test
  void theFeatureTierIgnoresJunkNamesAndANameUsedAnHourLaterHasAScopeOfItsOwn() throws Exception {
    EmulatorOptions options = EmulatorOptions.builder().timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO)
        .scenario(Scenario.builder().phase(Scenario.Phase.builder().model("claude-z*").status(529).build()).build())
        .build();
    GatewayClock virtual = VirtualTime.gateway(clock, 3);
    try (Harness h = Harness.start(options, CONFIG, "", virtual);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      for (int i = 0; i < 100; i++) {
        assertThat(send(h, http, "attacker", "claude-z" + i).statusCode()).isEqualTo(529);
      }
      for (int i = 0; i < 25; i++) {
        send(h, http, "attacker", "claude-z0");
      }
      assertThat(send(h, http, "victim", "ok2").statusCode()).isEqualTo(200);
      clock.advance(Duration.ofSeconds(30)); // an evaluation, within the SLI window (fresh failures)

      assertThat(h.gateway.tiers().tier("default")).as("every configured alias is at T0").isEqualTo(Tier.T0);
      JsonNode feature = Json.MAPPER.readTree(h.get("/health").body()).path("tiers").get(0);
      assertThat(feature.path("tier").asText()).as("/health: the feature's tier").isEqualTo("T0");
      assertThat(feature.path("other_models").path("below_t0").asInt()).as("the junk names did step down")
          .isPositive();
      String metrics = h.get("/metrics").body();
      assertThat(RateLimitCooldownTest.metric(metrics, "levee_tier", "feature=\"default\"")).isZero();
      assertThat(RateLimitCooldownTest.metric(metrics, "levee_tier_other_models", "feature=\"default\""))
          .as("the invented names, apart").isPositive();

      for (int minute = 0; minute < 64; minute++) {
        clock.advance(Duration.ofMinutes(1)); // the junk goes quiet for longer than a client scope's idle time
      }
      for (int i = 0; i < 25; i++) {
        assertThat(send(h, http, "b", "claude-zb").statusCode()).isEqualTo(529); // tenant b's name fails
      }
      clock.advance(Duration.ofSeconds(30));

      HttpResponse<String> c = send(h, http, "c", "claude-c1");

      assertThat(c.statusCode()).as(c.body()).isEqualTo(200);
      assertThat(c.headers().firstValue("x-levee-tier")).as("tenant c's name is not in b's scope").contains("T0");
      assertThat(c.headers().firstValue("x-levee-degraded")).isEmpty();
      assertThat(send(h, http, "b", "claude-zb").headers().firstValue("x-levee-tier"))
          .as("tenant b's own scope did step down").isNotEqualTo(java.util.Optional.of("T0"));
    }
  }

  private static HttpResponse<String> send(Harness h, HttpClient http, String tenant, String model) throws Exception {
    String body = "{\"model\":\"" + model + "\",\"max_tokens\":3000,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    return http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages"))
        .header("x-api-key", "sk-" + tenant).header("content-type", "application/json").header("anthropic-version", "2023-06-01")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
