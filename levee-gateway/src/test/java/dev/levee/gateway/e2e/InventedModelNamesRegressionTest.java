package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 9, item 4): after 1,000 distinct model names every new name shared one
 * overflow breaker ({@code emu/*}); four ordinary faults on one invented name then opened it, and
 * a healthy, never-used model got 503 "circuit open" with no upstream call, for the life of the
 * process.
 */
class InventedModelNamesRegressionTest {

  private static final String CONFIG = """
      models:
        smart:
          chain: [emu/claude-configured]
      policy:
        retry: { max-retries: 0 }
        breaker: { failures: 4, window: 60s, open-for: 60s }
      """;

  @Test
  void faultsOnOneInventedNameNeverShutOutAHealthyNeverUsedModel() throws Exception {
    EmulatorOptions options = EmulatorOptions.builder().timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO)
        .scenario(Scenario.builder().phase(Scenario.Phase.builder().model("broken-*").status(503).build()).build())
        .build();
    try (Harness h = Harness.start(options, CONFIG);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      for (int i = 0; i < Breakers.MAX_TARGETS + 20; i++) {
        assertThat(send(h, http, "invented-" + i).statusCode()).isEqualTo(200);
      }
      for (int i = 0; i < 4; i++) {
        assertThat(send(h, http, "broken-model").statusCode()).isEqualTo(503);
      }
      assertThat(h.gateway.chain().breakers().of(new Target("emu", "broken-model")).state().name()).isEqualTo("OPEN");
      int calls = h.emulator.log().size();

      HttpResponse<String> healthy = send(h, http, "claude-never-used");

      assertThat(healthy.statusCode()).as(healthy.body()).isEqualTo(200);
      assertThat(h.emulator.log()).hasSize(calls + 1);
      assertThat(send(h, http, "smart").statusCode()).isEqualTo(200);
      assertThat(evictions(h.get("/metrics").body())).isGreaterThanOrEqualTo(20);
    }
  }

  private static HttpResponse<String> send(Harness h, HttpClient http, String model) throws Exception {
    String body = "{\"model\":\"" + model + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    return http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages"))
        .header("x-api-key", "k").header("content-type", "application/json").header("anthropic-version", "2023-06-01")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static double evictions(String metrics) {
    Matcher m = Pattern.compile("levee_state_evictions_total\\{table=\"breakers\"} (\\S+)").matcher(metrics);
    assertThat(m.find()).as(metrics).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
