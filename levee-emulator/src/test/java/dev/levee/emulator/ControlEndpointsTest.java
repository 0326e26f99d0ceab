package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code GET /_emulator/log} and {@code POST /_emulator/reset}, and what the log records. */
class ControlEndpointsTest extends InstantEmulatorTest {

  @Test
  void theLogRecordsEveryAttemptWithHeadersQueryAndTheRawBodyButNeverTheKey() throws Exception {
    String json = "{\"model\":\"emu-ok\",\"max_tokens\":16,\"stream\":true,\"some_future_field\":0.70,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    HttpResponse<String> response = Wire.HTTP_CLIENT.send(HttpRequest.newBuilder(
        URI.create(emulator.baseUrl() + "/v1/messages?beta=true")).header("x-api-key", "sk-ant-secret-123")
        .header("anthropic-version", "2023-06-01").header("anthropic-beta", "feature-a")
        .header("anthropic-beta", "feature-b").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
    wire.post("/v1/messages", Wire.body("emu-529", false, "hi", "Holds"));

    HttpResponse<String> log = wire.get("/_emulator/log");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(log.statusCode()).isEqualTo(200);
    assertThat(log.body()).doesNotContain("sk-ant-secret-123");
    JsonNode entries = Json.tryParse(log.body());
    assertThat(entries).hasSize(2);
    JsonNode first = entries.get(0);
    assertThat(first.path("model").asText()).isEqualTo("emu-ok");
    assertThat(first.path("action").asText()).isEqualTo("ok");
    assertThat(first.path("status").asInt()).isEqualTo(200);
    assertThat(first.path("stream").asBoolean()).isTrue();
    assertThat(first.path("lastRole").asText()).isEqualTo("user");
    assertThat(first.path("query").asText()).isEqualTo("beta=true");
    assertThat(first.path("anthropicVersion").asText()).isEqualTo("2023-06-01");
    assertThat(first.path("anthropicBeta").asText()).isEqualTo("feature-a,feature-b");
    assertThat(first.path("body").asText()).isEqualTo(json);
    assertThat(first.path("bodySize").asLong()).isEqualTo(json.length());
    assertThat(first.path("bodySha256").asText()).isEqualTo(sha256(json));
    assertThat(first.path("clientGoneEarly").asBoolean()).isFalse();
    assertThat(first.path("finished").asBoolean()).isTrue();
    assertThat(first.path("atMs").asLong()).isNotNegative();
    assertThat(entries.get(1).path("action").asText()).isEqualTo("529");
    assertThat(entries.get(1).path("lastRole").asText()).isEqualTo("assistant");
    assertThat(emulator.log()).extracting(LogEntry::model).containsExactly("emu-ok", "emu-529");
  }

  @Test
  void theLogKeepsTheFirst256KibOfALargeBodyAndHashesAllOfIt() throws Exception {
    ObjectNode body = Wire.body("emu-ok", false, "word ".repeat(60_000).trim());
    String json = Json.string(body);

    wire.post("/v1/messages", body);

    LogEntry entry = emulator.log().getFirst();
    assertThat(entry.bodySize()).isEqualTo(json.length()).isGreaterThan(256 * 1024);
    assertThat(entry.body()).hasSize(256 * 1024).isEqualTo(json.substring(0, 256 * 1024));
    assertThat(entry.bodyTruncated()).isTrue();
    assertThat(entry.bodySha256()).isEqualTo(sha256(json));
  }

  @Test
  void resetClearsTheLogAndTheFirstAttemptMemory() throws Exception {
    assertThat(wire.post("/v1/messages", Wire.body("emu-500-once", false, "hi")).statusCode()).isEqualTo(500);
    assertThat(wire.post("/v1/messages", Wire.body("emu-500-once", false, "hi")).statusCode()).isEqualTo(200);

    HttpResponse<String> reset = wire.post("/_emulator/reset", "");

    assertThat(reset.statusCode()).isEqualTo(200);
    assertThat(emulator.log()).isEmpty();
    assertThat(wire.post("/v1/messages", Wire.body("emu-500-once", false, "hi")).statusCode()).isEqualTo(500);
    assertThat(Json.tryParse(wire.get("/_emulator/log").body())).hasSize(1);
  }

  @Test
  void aPostedScenarioSwitchesAStormOnAndABadOneIsRefusedNamingTheKey() throws Exception {
    assertThat(wire.post("/v1/messages", Wire.body("claude-main", false, "hi")).statusCode()).isEqualTo(200);

    HttpResponse<String> storm = wire.post("/_emulator/scenario",
        "{\"phases\":[{\"model\":\"*\",\"status\":429,\"rate\":1.0,\"retry-after\":\"2s\"}]}");
    HttpResponse<String> stormed = wire.post("/v1/messages", Wire.body("claude-main", false, "hi"));
    HttpResponse<String> bad = wire.post("/_emulator/scenario", "phases:\n  - status: 418\n");
    HttpResponse<String> stillStormed = wire.post("/v1/messages", Wire.body("claude-main", false, "hi"));
    wire.post("/_emulator/scenario", "phases: []\n");
    HttpResponse<String> calm = wire.post("/v1/messages", Wire.body("claude-main", false, "hi"));

    assertThat(storm.statusCode()).isEqualTo(200);
    assertThat(Json.tryParse(storm.body()).path("phases").asInt()).isEqualTo(1);
    assertThat(stormed.statusCode()).isEqualTo(429);
    assertThat(stormed.headers().firstValue("retry-after")).hasValue("2");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(Json.tryParse(bad.body()).path("error").path("type").asText()).isEqualTo("invalid_request_error");
    assertThat(Json.tryParse(bad.body()).path("error").path("message").asText()).contains("status");
    assertThat(stillStormed.statusCode()).as("a refused scenario leaves the playing one").isEqualTo(429);
    assertThat(calm.statusCode()).isEqualTo(200);
    assertThat(emulator.log()).as("playing a scenario starts from a reset").hasSize(1);
  }

  @Test
  void countTokensAndModelsAreLoggedWithTheirPaths() throws Exception {
    ObjectNode count = Wire.body("emu-ok", false, "one two");
    count.remove("max_tokens"); // count_tokens refuses it, as the API does
    wire.post("/v1/messages/count_tokens", count);
    wire.get("/v1/models");

    assertThat(emulator.log()).extracting(LogEntry::path).containsExactly("/v1/messages/count_tokens", "/v1/models");
    assertThat(emulator.log()).extracting(LogEntry::method).containsExactly("POST", "GET");
  }

  /** Regression: the control endpoints answered without the {@code request-id} every other answer carries. */
  @Test
  void everyControlAnswerCarriesARequestIdAndPollingChangesNoApiId() throws Exception {
    String before = wire.post("/v1/messages", Wire.body("emu-ok", false, "hi")).headers().firstValue("request-id")
        .orElseThrow();
    HttpResponse<String> log = wire.get("/_emulator/log");
    HttpResponse<String> bad = wire.post("/_emulator/scenario", "phases:\n  - status: 418\n");
    HttpResponse<String> missing = wire.get("/_emulator/nothing");
    HttpResponse<String> reset = wire.post("/_emulator/reset", "");

    for (HttpResponse<String> control : List.of(log, bad, missing, reset)) {
      assertThat(control.headers().firstValue("request-id")).as(control.uri().getPath()).hasValueSatisfying(
          id -> assertThat(id).startsWith("req_011C").isNotEqualTo(before));
    }
    assertThat(Json.tryParse(bad.body()).path("request_id").asText()).isEqualTo(bad.headers().firstValue("request-id")
        .orElseThrow());
    assertThat(Json.tryParse(missing.body()).path("request_id").asText())
        .isEqualTo(missing.headers().firstValue("request-id").orElseThrow());
    assertThat(List.of(log, bad, missing, reset)).extracting(r -> r.headers().firstValue("request-id").orElseThrow())
        .doesNotHaveDuplicates();

    try (Emulator quiet = Emulator.start(EmulatorOptions.builder()
        .timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).build())) { // the same seed, the log never polled
      Wire plain = new Wire(quiet);
      plain.post("/v1/messages", Wire.body("emu-ok", false, "hi"));
      String unpolled = plain.post("/v1/messages", Wire.body("emu-ok", false, "hi")).headers()
          .firstValue("request-id").orElseThrow();
      String polled = wire.post("/v1/messages", Wire.body("emu-ok", false, "hi")).headers().firstValue("request-id")
          .orElseThrow();
      assertThat(polled).as("the API's ids follow their own sequence").isEqualTo(unpolled);
    }
  }

  private static String sha256(String text) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }
}
