package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import com.anthropic.client.AnthropicClient;
import com.anthropic.errors.OverloadedException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Faults that answer with an HTTP error status instead of a message. */
class StatusFaultsTest extends InstantEmulatorTest {

  @Test
  void emu529IsAlwaysOverloadedWithoutRetryAfter() throws Exception {
    HttpResponse<String> first = wire.post("/v1/messages", Wire.body("emu-529", false, "hi"));
    HttpResponse<String> second = wire.post("/v1/messages", Wire.body("emu-529", true, "hi"));
    AnthropicClient client = Sdk.client(emulator);

    assertError(first, 529, "overloaded_error");
    assertError(second, 529, "overloaded_error");
    assertThat(first.headers().firstValue("retry-after")).isEmpty();
    assertThatThrownBy(() -> client.messages().create(Sdk.params("emu-529", "hi")))
        .isInstanceOf(OverloadedException.class);
    assertThat(emulator.log()).extracting(LogEntry::action).containsExactly("529", "529", "529");
    client.close();
  }

  @Test
  void emu429Ra2LimitsTheFirstAttemptWithRetryAfterThenAnswers() throws Exception {
    HttpResponse<String> first = wire.post("/v1/messages", Wire.body("emu-429-ra2", false, "hi"));
    HttpResponse<String> retry = wire.post("/v1/messages", Wire.body("emu-429-ra2", false, "hi"));
    HttpResponse<String> otherConversation = wire.post("/v1/messages", Wire.body("emu-429-ra2", false, "other"));

    assertError(first, 429, "rate_limit_error");
    assertThat(first.headers().firstValue("retry-after")).contains("2");
    assertThat(first.headers().firstValue("anthropic-ratelimit-requests-limit")).isPresent();
    assertThat(retry.statusCode()).isEqualTo(200);
    assertError(otherConversation, 429, "rate_limit_error");
    assertThat(emulator.log()).extracting(LogEntry::action).containsExactly("429", "ok", "429");
  }

  @Test
  void emu429SeqAnswersEachAttemptOfAConversationWithTheNextRetryAfterThenAnswers() throws Exception {
    List<String> retryAfters = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> limited = wire.post("/v1/messages", Wire.body("emu-429-seq-2-10-30", false, "hi"));
      assertError(limited, 429, "rate_limit_error");
      retryAfters.add(limited.headers().firstValue("retry-after").orElseThrow());
    }
    HttpResponse<String> fourth = wire.post("/v1/messages", Wire.body("emu-429-seq-2-10-30", false, "hi"));
    HttpResponse<String> otherConversation = wire.post("/v1/messages", Wire.body("emu-429-seq-2-10-30", false, "other"));

    assertThat(retryAfters).containsExactly("2", "10", "30");
    assertThat(fourth.statusCode()).isEqualTo(200);
    assertError(otherConversation, 429, "rate_limit_error");
    assertThat(otherConversation.headers().firstValue("retry-after")).contains("2");
    emulator.reset();
    assertThat(wire.post("/v1/messages", Wire.body("emu-429-seq-2-10-30", false, "hi")).headers().firstValue("retry-after"))
        .contains("2");
  }

  @Test
  void emu500OnceFailsOnlyTheFirstAttemptUntilReset() throws Exception {
    assertError(wire.post("/v1/messages", Wire.body("emu-500-once", false, "hi")), 500, "api_error");
    assertThat(wire.post("/v1/messages", Wire.body("emu-500-once", false, "hi")).statusCode()).isEqualTo(200);

    emulator.reset();

    assertError(wire.post("/v1/messages", Wire.body("emu-500-once", false, "hi")), 500, "api_error");
  }

  @Test
  void theFirstAttemptIsPerModelAndConversationNotPerRequestShape() throws Exception {
    assertError(wire.post("/v1/messages", Wire.body("emu-500-once", false, "hi")), 500, "api_error");
    // a continuation of the same conversation (same first user message) is not a first attempt
    assertThat(wire.post("/v1/messages", Wire.body("emu-500-once", true, "hi", "Holds", "go on")).statusCode())
        .isEqualTo(200);
    // the same conversation on another fault model is
    assertError(wire.post("/v1/messages", Wire.body("emu-500-once-noprefill", false, "hi")), 500, "api_error");
  }

  @Test
  void emu503AndEmu400FailEveryAttempt() throws Exception {
    for (int i = 0; i < 2; i++) {
      assertError(wire.post("/v1/messages", Wire.body("emu-503", false, "hi")), 503, "api_error");
      assertError(wire.post("/v1/messages", Wire.body("emu-400", true, "hi")), 400, "invalid_request_error");
    }
  }

  @Test
  void anUnknownEmuModelIsNotFound() throws Exception {
    assertError(wire.post("/v1/messages", Wire.body("emu-explode", false, "hi")), 404, "not_found_error");
  }

  private static void assertError(HttpResponse<String> response, int status, String type) {
    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(response.headers().firstValue("content-type")).contains("application/json");
    JsonNode body = Json.tryParse(response.body());
    assertThat(body.path("type").asText()).isEqualTo("error");
    assertThat(body.path("error").path("type").asText()).isEqualTo(type);
    assertThat(body.path("error").path("message").asText()).isNotBlank();
    assertThat(body.path("request_id").asText()).startsWith("req_")
        .isEqualTo(response.headers().firstValue("request-id").orElseThrow());
  }
}
