package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.route.ModelPrice;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression: a stream cut on one model and continued on another model of its chain was counted
 * wholly under the model it started on — {@code levee_tokens_total} and {@code
 * levee_cost_usd_total} summed every continuation's tokens into the first model's series, priced
 * at the first model's price (docs/gateway.md called it a known limitation). Each part of the
 * stream now counts, and is priced, under the model that served it; the client's stream is the
 * same spliced answer as before.
 */
class RecoveredStreamPricedPerModelRegressionTest {

  private static final String CUT = "emu-cut-5-always"; // cut after 5 deltas, on every call
  private static final String FALLBACK = "emu-ok";
  private static final ModelPrice CUT_PRICE = ModelPrice.perMillion(15, 75);
  private static final ModelPrice FALLBACK_PRICE = ModelPrice.perMillion(1, 5);
  private static final String PROMPT = "price each part of my answer";

  // one failure opens the cut model's breaker: its recovery goes to the fallback, another model
  private static final String CONFIG = """
      models:
        s:
          chain: [emu/%s, emu/%s]
      routing:
        prices:
          %s: { input: 15, output: 75 }
          %s: { input: 1, output: 5 }
      policy:
        deadline: 10s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms }
        retry-budget: { max: 100, ratio: 0.5 }
        stream: { ttft-timeout: 1s, idle-timeout: 600ms, recovery-window: 8s }
        breaker: { failures: 1, open-for: 60s }
      """.formatted(CUT, FALLBACK, CUT, FALLBACK);

  private static final Map<String, String> HEADERS = Map.of("content-type", "application/json",
      "x-api-key", "sk-test-client-key", "anthropic-version", "2023-06-01");

  @Test
  void aStreamCutOnOneModelAndFinishedOnAnotherCountsAndPricesEachPartUnderItsOwnModel() throws Exception {
    EmulatorOptions emulator = EmulatorOptions.builder().pingInterval(Duration.ofMillis(100)).build();
    try (Harness h = Harness.start(emulator, CONFIG)) {
      HttpResponse<String> response = h.post("/v1/messages",
          "{\"model\":\"s\",\"max_tokens\":1024,\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\""
              + PROMPT + "\"}]}", HEADERS);
      ClientStream client = ClientStream.of(response);

      assertThat(h.attempts(CUT)).hasSize(1);
      List<LogEntry> continued = h.attempts(FALLBACK);
      assertThat(continued).hasSize(1);
      assertThat(continued.get(0).continuation()).as("the other model continued the cut stream").isNotNull();
      assertThat(client.text).as("the client gets the whole answer, spliced").isEqualTo(h.expectedText(PROMPT));

      Scrape metrics = new Scrape(h.awaitMetrics("levee_request_upstream_calls_count 1\n")); // counted after stage 6
      double cutInput = tokens(metrics, CUT, "input");
      double cutOutput = tokens(metrics, CUT, "output");
      double fallbackInput = tokens(metrics, FALLBACK, "input");
      double fallbackOutput = tokens(metrics, FALLBACK, "output");

      assertThat(cutInput).as("the first call's input, as its message_start said").isEqualTo(client.startInput);
      assertThat(fallbackInput).as("the continuation's input (the prompt and the partial answer)")
          .isEqualTo(client.finalInput - client.startInput).isGreaterThan(client.startInput);
      assertThat(cutOutput).as("the part the cut call delivered").isPositive();
      assertThat(fallbackOutput).as("the part the continuation delivered").isPositive();
      assertThat(cutOutput + fallbackOutput).as("together the answer's output, as the client's usage says")
          .isEqualTo(client.finalOutput);

      assertThat(cost(metrics, CUT)).isCloseTo(dollars(CUT_PRICE, cutInput, cutOutput), within(1e-12));
      assertThat(cost(metrics, FALLBACK)).as("priced at the continuing model's own price")
          .isCloseTo(dollars(FALLBACK_PRICE, fallbackInput, fallbackOutput), within(1e-12));
    }
  }

  private static double tokens(Scrape metrics, String model, String type) {
    return metrics.value("levee_tokens_total", Map.of("model", model, "type", type));
  }

  private static double cost(Scrape metrics, String model) {
    return metrics.value("levee_cost_usd_total", Map.of("model", model));
  }

  /** Tokens priced as docs/observability.md says (no cache tokens here: the emulator reports 0). */
  private static double dollars(ModelPrice price, double input, double output) {
    return input / 1000.0 * price.inputPer1k() + output / 1000.0 * price.outputPer1k();
  }

  /** What the client read: the text, the first {@code message_start}'s input and the final usage. */
  private record ClientStream(String text, long startInput, long finalInput, long finalOutput) {

    static ClientStream of(HttpResponse<String> response) {
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      StringBuilder text = new StringBuilder();
      long startInput = -1;
      long finalInput = -1;
      long finalOutput = -1;
      int starts = 0;
      String event = null;
      for (String line : response.body().split("\n")) {
        if (line.startsWith("event: ")) {
          event = line.substring("event: ".length());
        } else if (line.startsWith("data: ")) {
          JsonNode data = Json.tryParse(line.substring("data: ".length()));
          switch (event) {
            case "message_start" -> {
              starts++;
              startInput = data.path("message").path("usage").path("input_tokens").asLong();
            }
            case "content_block_delta" -> text.append(data.path("delta").path("text").asText(""));
            case "message_delta" -> {
              finalInput = data.path("usage").path("input_tokens").asLong();
              finalOutput = data.path("usage").path("output_tokens").asLong();
            }
            case "error" -> throw new AssertionError("the stream ended in an error: " + response.body());
            default -> { }
          }
        }
      }
      assertThat(starts).as("one message_start, as one unbroken answer").isEqualTo(1);
      return new ClientStream(text.toString(), startInput, finalInput, finalOutput);
    }
  }
}
