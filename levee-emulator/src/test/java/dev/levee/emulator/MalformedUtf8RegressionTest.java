package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 15, hostile clients): the emulator answered 200 to a body whose message
 * text held ill-formed UTF-8 (an overlong form, an encoded surrogate: the JSON parser decodes them
 * without a word), where the gateway refuses it. It now refuses such a body as the gateway does,
 * 400 {@code invalid_request_error} naming the byte offset of the first bad sequence, on {@code
 * /v1/messages} and {@code /v1/messages/count_tokens}.
 */
class MalformedUtf8RegressionTest {

  private static final String HEAD = "{\"model\":\"emu-ok\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"";

  @Test
  void aBodyWithAnIllFormedSequenceIsRefusedWithItsOffset() throws Exception {
    try (Emulator emulator = Emulator.start(EmulatorOptions.builder().build())) {
      Wire wire = new Wire(emulator);
      for (String path : List.of("/v1/messages", "/v1/messages/count_tokens")) {
        for (String hex : List.of("c0af", "eda080", "ff", "e282")) {
          HttpResponse<String> answer = wire.post(path, body(HexFormat.of().parseHex(hex)));

          assertThat(answer.statusCode()).as(path + " " + hex).isEqualTo(400);
          JsonNode error = Json.tryParse(answer.body());
          assertThat(error.at("/error/type").asText()).isEqualTo("invalid_request_error");
          assertThat(error.at("/error/message").asText()).as(hex)
              .startsWith("request body is not valid UTF-8: the ").contains("at offset " + (HEAD.length() + 2) + " ");
        }
      }
      assertThat(wire.post("/v1/messages", body(HexFormat.of().parseHex("e282ac"))).statusCode())
          .as("a euro sign is UTF-8").isEqualTo(200);
    }
  }

  private static byte[] body(byte[] inside) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes((HEAD + "hi").getBytes(StandardCharsets.UTF_8));
    out.writeBytes(inside);
    out.writeBytes("\"}]}".getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }
}
