package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.levee.anthropic.Json;
import dev.levee.emulator.LogEntry;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (newcomer trial): a stream recovered after a break asked its continuation for the
 * client's whole {@code max_tokens} again. With {@code max_tokens: 40} and the emulator (one token a
 * word), examples/local.yaml's {@code flaky} alias returned 47 words ending {@code end_turn} with
 * {@code output_tokens: 39}; {@code emu-error-3} 46 words, {@code emu-malformed-3} 43 — where the
 * unbroken answer is 40 words ending {@code max_tokens}. Now a recovered stream stays within {@code
 * max_tokens}, ends as the unbroken one does ({@code max_tokens}, {@code output_tokens: 40}), and
 * its text is the unbroken text or a beginning of it (the delivered part is counted high, so the
 * continuation may stop earlier; never a word repeated or missing).
 *
 * <p>And a stream cut by its upstream dying, whose recovery then finds the connection refused,
 * ends with an {@code event: error} that says both: the stream was cut, and the recovery failed.
 */
class RecoveredStreamWithinMaxTokensRegressionTest {

  private static final Map<String, String> HEADERS = Map.of("content-type", "application/json",
      "x-api-key", "sk-test-client-key", "anthropic-version", "2023-06-01");

  private static final String PROMPT = "a long story, take 19"; // the emulator answers it in 59 words

  /** The recovered alias {@code r} (each chain as the trial ran it) beside the unbroken alias {@code whole}. */
  private static String config(String chain) {
    return "models:\n  r:\n    chain: " + chain + "\n  whole:\n    chain: [emu/emu-ok-noprefill]\n"
        + Harness.BASE_POLICY;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"[emu/emu-cut-5-always, emu/emu-ok-noprefill]", "[emu/emu-error-3]", "[emu/emu-malformed-3]"})
  void aRecoveredStreamEndsAsTheUnbrokenOneAtItsMaxTokens(String chain) throws Exception {
    try (Harness h = Harness.start(config(chain))) {
      Streamed unbroken = Streamed.of(h.post("/v1/messages", body("whole", 40), HEADERS));
      Streamed recovered = Streamed.of(h.post("/v1/messages", body("r", 40), HEADERS));

      assertThat(unbroken.stopReason).isEqualTo("max_tokens");
      assertThat(words(unbroken.text)).isEqualTo(40);
      List<LogEntry> log = h.emulator.log();
      assertThat(log.stream().filter(e -> e.continuation() != null)).as("a continuation was asked for: %s", log)
          .isNotEmpty();
      assertThat(words(recovered.text)).as(recovered.text).isLessThanOrEqualTo(40);
      assertThat(unbroken.text).as("no word repeated or missing").startsWith(recovered.text);
      assertThat(recovered.stopReason).isEqualTo("max_tokens");
      assertThat(recovered.outputTokens).isEqualTo(unbroken.outputTokens).isEqualTo(40);
    }
  }

  /**
   * Regression (session 11's cost): the part delivered before the break was counted high (2 bytes
   * a token, 3 a word here), so a recovered answer at its limit stopped early: 20–26 words of 40.
   * A continuation by the same model gives the upstream's own count of the partial answer (its
   * input, less the first attempt's), and the answer goes on to its full length: emu-cut-12 breaks
   * after 12 deltas (24 words, 60 %, counted 40 high: a continuation of 1 token, then the rest).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"[emu/emu-cut-12]", "[emu/emu-error-3]", "[emu/emu-malformed-3]"})
  void aRecoveryByTheSameModelNoLongerStopsEarly(String chain) throws Exception {
    try (Harness h = Harness.start(config(chain))) {
      Streamed unbroken = Streamed.of(h.post("/v1/messages", body("whole", 40), HEADERS));
      Streamed recovered = Streamed.of(h.post("/v1/messages", body("r", 40), HEADERS));

      assertThat(recovered.text).isEqualTo(unbroken.text);
      assertThat(words(recovered.text)).isEqualTo(40);
      assertThat(recovered.stopReason).isEqualTo("max_tokens");
      assertThat(recovered.outputTokens).isEqualTo(40);
      assertThat(h.emulator.log().stream().filter(e -> e.continuation() != null))
          .as("a continuation, and one more to go on from where it stopped short").hasSizeBetween(1, 2);
    }
  }

  @Test
  void withRoomToSpareTheRecoveredTextIsTheWholeAnswerWithinMaxTokens() throws Exception {
    try (Harness h = Harness.start(config("[emu/emu-cut-5-always, emu/emu-ok-noprefill]"))) {
      Streamed unbroken = Streamed.of(h.post("/v1/messages", body("whole", 1024), HEADERS));
      Streamed recovered = Streamed.of(h.post("/v1/messages", body("r", 1024), HEADERS));

      assertThat(unbroken.stopReason).isEqualTo("end_turn");
      assertThat(recovered.text).isEqualTo(unbroken.text);
      assertThat(recovered.stopReason).isEqualTo("end_turn");
      assertThat(recovered.outputTokens).as("the cut part counted high, never less than it cost")
          .isBetween(unbroken.outputTokens, 1024L);
    }
  }

  @Test
  void aCutWithNoOutputLeftEndsAtMaxTokensWithoutAContinuation() throws Exception {
    try (Harness h = Harness.start(config("[emu/emu-cut-5-always, emu/emu-ok-noprefill]"))) {
      Streamed unbroken = Streamed.of(h.post("/v1/messages", body("whole", 8), HEADERS));
      Streamed recovered = Streamed.of(h.post("/v1/messages", body("r", 8), HEADERS));

      assertThat(unbroken.stopReason).isEqualTo("max_tokens");
      assertThat(recovered.stopReason).isEqualTo("max_tokens");
      assertThat(recovered.outputTokens).isEqualTo(8);
      assertThat(unbroken.text).startsWith(recovered.text);
      assertThat(h.attempts("emu-ok-noprefill")).as("only the unbroken stream's call: nothing was left to ask for")
          .hasSize(1);
    }
  }

  @Test
  void aCutWhoseRecoveryIsRefusedSaysTheStreamWasCutAndWhyItWasNotResumed() throws Exception {
    HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    upstream.createContext("/v1/messages", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.getResponseHeaders().add("content-type", "text/event-stream");
      exchange.sendResponseHeaders(200, 0);
      OutputStream out = exchange.getResponseBody();
      out.write(("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_fake\","
          + "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"fake-model\",\"content\":[],\"stop_reason\":null,"
          + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
          + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
          + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
          + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
          + "\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
      upstream.stop(0); // the upstream dies: this stream is cut, and every later call is refused
    });
    upstream.start();
    String config = "  fake:\n    url: http://127.0.0.1:" + upstream.getAddress().getPort() + "\n"
        + "models:\n  s:\n    chain: [fake/fake-model]\n" + Harness.BASE_POLICY;
    try (Harness h = Harness.start(config)) {
      HttpResponse<String> response = h.post("/v1/messages", body("s", 64), HEADERS);

      String message = Streamed.of(response).errorMessage;
      assertThat(message).as(response.body()).startsWith("The answer is incomplete: the upstream stream was cut (")
          .contains("could not resume it because no target could continue it")
          .contains("the last recovery call: connection_error");
    } finally {
      upstream.stop(0);
    }
  }

  private static String body(String model, int maxTokens) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":" + maxTokens + ",\"stream\":true,"
        + "\"messages\":[{\"role\":\"user\",\"content\":" + Json.string(PROMPT) + "}]}";
  }

  private static int words(String text) {
    String trimmed = text.strip();
    return trimmed.isEmpty() ? 0 : trimmed.split("\\s+").length;
  }

  /** What a client reads from a raw stream: its text, final stop reason and output tokens, or its error. */
  private record Streamed(String text, String stopReason, long outputTokens, String errorMessage) {

    static Streamed of(HttpResponse<String> response) {
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      StringBuilder text = new StringBuilder();
      String stopReason = null;
      long outputTokens = -1;
      String error = null;
      String event = null;
      for (String line : response.body().split("\n")) {
        if (line.startsWith("event: ")) {
          event = line.substring("event: ".length());
        } else if (line.startsWith("data: ")) {
          JsonNode data = Json.tryParse(line.substring("data: ".length()));
          switch (event) {
            case "content_block_delta" -> text.append(data.path("delta").path("text").asText(""));
            case "message_delta" -> {
              stopReason = data.path("delta").path("stop_reason").asText();
              outputTokens = data.path("usage").path("output_tokens").asLong();
            }
            case "error" -> error = data.path("error").path("message").asText();
            default -> { }
          }
        }
      }
      return new Streamed(text.toString(), stopReason, outputTokens, error);
    }
  }
}
