package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TokenUsageTest {

  private static final String MESSAGE = "{\"id\":\"msg_1\",\"type\":\"message\",\"content\":[{\"type\":\"text\","
      + "\"text\":\"usage\"}],\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":12,\"output_tokens\":34,"
      + "\"cache_read_input_tokens\":5,\"cache_creation_input_tokens\":6,\"server_tool_use\":{\"web_search_requests\":1}}}";

  @Test
  void aMessagesUsageIsReadWithoutATreeAsTheTreeReadsIt() {
    assertThat(TokenUsage.ofMessage(bytes(MESSAGE))).isEqualTo(new TokenUsage(12, 34, 5, 6))
        .isEqualTo(TokenUsage.of(Json.tryParse(MESSAGE).path("usage")));
    String odd = "{\"usage\":{\"input_tokens\":\"7\",\"output_tokens\":null,\"cache_read_input_tokens\":[1]}}";
    assertThat(TokenUsage.ofMessage(bytes(odd))).isEqualTo(TokenUsage.of(Json.tryParse(odd).path("usage")))
        .isEqualTo(new TokenUsage(7, 0, 0, 0));
  }

  @Test
  void noUsageOrNoJsonIsNone() {
    assertThat(TokenUsage.ofMessage(bytes("{\"type\":\"message\"}"))).isEqualTo(TokenUsage.NONE);
    assertThat(TokenUsage.ofMessage(bytes("{\"usage\":{\"input_tokens\":1},\"usage\":7}"))).isEqualTo(TokenUsage.NONE);
    assertThat(TokenUsage.ofMessage(bytes("not json"))).isEqualTo(TokenUsage.NONE);
    assertThat(TokenUsage.ofMessage(bytes("[1,2]"))).isEqualTo(TokenUsage.NONE);
    assertThat(TokenUsage.ofMessage(new byte[0])).isEqualTo(TokenUsage.NONE);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
