package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * Regression (tester): {@code POST /v1/messages/count_tokens} answered a body holding {@code
 * max_tokens} or {@code stream}; the API refuses them with 400 {@code invalid_request_error}
 * "max_tokens: Extra inputs are not permitted" (seen in public threads, e.g.
 * github.com/Wei-Shaw/sub2api/pull/4913), so a client that sends its Messages body to count
 * tokens passed against the emulator and failed in production.
 */
class CountTokensExtraInputsRegressionTest extends InstantEmulatorTest {

  @Test
  void maxTokensIsAnExtraInput() throws Exception {
    ObjectNode body = Wire.body("emu-ok", false, "one two");

    Wire.assertInvalidRequest(wire.post("/v1/messages/count_tokens", body), "max_tokens: Extra inputs are not permitted");
  }

  @Test
  void streamIsAnExtraInputEvenWhenFalse() throws Exception {
    for (boolean stream : new boolean[] {true, false}) {
      ObjectNode body = countBody().put("stream", stream);

      Wire.assertInvalidRequest(wire.post("/v1/messages/count_tokens", body), "stream: Extra inputs are not permitted");
    }
  }

  @Test
  void theSameBodyWithoutThemIsCountedAndTheMessagesEndpointStillTakesThem() throws Exception {
    HttpResponse<String> counted = wire.post("/v1/messages/count_tokens", countBody());
    HttpResponse<String> answered = wire.post("/v1/messages", Wire.body("emu-ok", false, "one two").put("stream", false));

    assertThat(counted.statusCode()).as(counted.body()).isEqualTo(200);
    assertThat(Json.tryParse(counted.body()).path("input_tokens").asInt()).isEqualTo(2);
    assertThat(answered.statusCode()).as(answered.body()).isEqualTo(200);
  }

  @Test
  void theRefusalIsLoggedWithTheModel() throws Exception {
    wire.post("/v1/messages/count_tokens", Wire.body("emu-ok", false, "one two"));

    LogEntry refused = emulator.log().getLast();
    assertThat(refused.model()).isEqualTo("emu-ok");
    assertThat(refused.status()).isEqualTo(400);
  }

  private static ObjectNode countBody() {
    ObjectNode body = Wire.body("emu-ok", false, "one two");
    body.remove("max_tokens");
    return body;
  }
}
