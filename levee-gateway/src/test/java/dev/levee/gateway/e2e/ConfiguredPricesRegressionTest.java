package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.route.ModelPrice;
import dev.levee.core.route.PriceTable;
import dev.levee.gateway.health.CostMeter;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression: the gateway priced its cost metrics ({@code levee_cost_usd_total}, {@code /health}'s
 * {@code cost}) with {@link PriceTable#defaults()} while the router used the configured {@code
 * routing.prices}, so an operator's prices changed the routing but not the reported spend.
 */
class ConfiguredPricesRegressionTest {

  private static final String MODEL = "claude-opus-4-6"; // priced in the built-in table too
  private static final double INPUT_PER_MTOK = 7;
  private static final double OUTPUT_PER_MTOK = 40;

  private static final String CONFIG = """
      models:
        smart:
          chain: [emu/%s]
      routing:
        prices:
          %s: { input: %s, output: %s }
      """.formatted(MODEL, MODEL, INPUT_PER_MTOK, OUTPUT_PER_MTOK) + Harness.BASE_POLICY;

  @Test
  void anAnswersCostIsPricedAtTheConfiguredPriceOfItsModel() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      HttpResponse<String> answer = h.post("/v1/messages",
          "{\"model\":\"smart\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}",
          Map.of("x-api-key", "k"));
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      JsonNode usage = Json.tryParse(answer.body()).path("usage");
      double expected = dollars(usage, ModelPrice.perMillion(INPUT_PER_MTOK, OUTPUT_PER_MTOK));
      double builtIn = dollars(usage, PriceTable.defaults().priceOf(MODEL).orElseThrow());
      assertThat(expected).as("the configured price must differ from the built-in one to tell them apart")
          .isNotCloseTo(builtIn, within(1e-9));

      Scrape metrics = new Scrape(h.awaitMetrics("levee_cost_usd_total{"));

      assertThat(metrics.value("levee_cost_usd_total", Map.of("model", MODEL))).isCloseTo(expected, within(1e-12));
    }
  }

  /** The answer's usage priced as docs/observability.md says, at {@code price}. */
  private static double dollars(JsonNode usage, ModelPrice price) {
    double input = usage.path("input_tokens").asLong()
        + usage.path("cache_read_input_tokens").asLong() * CostMeter.CACHE_READ
        + usage.path("cache_creation_input_tokens").asLong() * CostMeter.CACHE_WRITE;
    return input / 1000.0 * price.inputPer1k() + usage.path("output_tokens").asLong() / 1000.0 * price.outputPer1k();
  }
}
