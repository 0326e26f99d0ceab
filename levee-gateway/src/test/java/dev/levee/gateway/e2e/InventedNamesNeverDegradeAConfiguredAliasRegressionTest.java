package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import dev.levee.emulator.Scenario;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 9, high): one long-lived gateway with aliases {@code sick2}
 * and {@code ok2}; tenant {@code attacker} sends 400 requests to 400 invented model names, each
 * answered 529. Past 256 scopes every new feature-and-alias pair shared one {@code *} scope, so
 * another tenant's first call to the healthy configured {@code ok2} was answered at {@code T2}
 * ({@code x-levee-degraded: T2: reduced model}, {@code max_tokens} cut from 3000 to 1024), and
 * {@code /health} grew to 106 KB.
 */
class InventedNamesNeverDegradeAConfiguredAliasRegressionTest {

  private static final String CONFIG = """
      models:
        sick2: { chain: [emu/claude-3-opus] }
        ok2: { chain: [emu/claude-3-haiku] }
      tiers:
        evaluate-every: 1h   # the test evaluates the tiers itself, once the attack is over
      policy:
        retry: { max-retries: 0 }
        breaker: off
      """;

  @Test
  void anotherTenantsFirstCallToAHealthyConfiguredAliasIsAnsweredInFull() throws Exception {
    EmulatorOptions options = EmulatorOptions.builder().timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO)
        .scenario(Scenario.builder().phase(Scenario.Phase.builder().model("claude-z*").status(529).build()).build())
        .build();
    try (Harness h = Harness.start(options, CONFIG);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      for (int i = 0; i < 400; i++) {
        assertThat(send(h, http, "attacker", "claude-z" + i).statusCode()).isEqualTo(529);
      }
      h.gateway.tiers().evaluateAll();
      assertThat(h.gateway.tiers().otherModelsTier("default")).as("the invented names' own tiers did step down")
          .isNotEqualTo(dev.levee.core.tier.Tier.T0);
      assertThat(h.gateway.tiers().tier("default")).as("the feature's tier is its configured aliases'")
          .isEqualTo(dev.levee.core.tier.Tier.T0);

      HttpResponse<String> ok2 = send(h, http, "victim", "ok2");

      assertThat(ok2.statusCode()).as(ok2.body()).isEqualTo(200);
      assertThat(ok2.headers().firstValue("x-levee-tier")).contains("T0");
      assertThat(ok2.headers().firstValue("x-levee-degraded")).isEmpty();
      List<LogEntry> haiku = h.attempts("claude-3-haiku");
      assertThat(haiku).hasSize(1);
      assertThat(Json.MAPPER.readTree(haiku.getFirst().body()).path("max_tokens").asInt()).isEqualTo(3000);

      h.gateway.tiers().evaluateAll();
      HttpResponse<String> again = send(h, http, "victim", "ok2");
      assertThat(again.headers().firstValue("x-levee-tier")).as("still, after an evaluation").contains("T0");

      String health = h.get("/health").body();
      JsonNode defaults = Json.MAPPER.readTree(health).path("tiers").get(0);
      assertThat(defaults.path("other_models").path("scopes").asInt()).isGreaterThan(1);
      assertThat(defaults.path("aliases").size()).isLessThanOrEqualTo(12);
      assertThat(health.length()).as("/health stays small").isLessThan(32 * 1024);
    }
  }

  private static HttpResponse<String> send(Harness h, HttpClient http, String tenant, String model) throws Exception {
    String body = "{\"model\":\"" + model + "\",\"max_tokens\":3000,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    return http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages"))
        .header("x-api-key", "sk-" + tenant).header("content-type", "application/json").header("anthropic-version", "2023-06-01")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
