package dev.levee.anthropic.message;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.levee.anthropic.Json;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class TokenUsageTest {

  private static final String USAGE = "{\"input_tokens\":12,\"output_tokens\":34,\"cache_read_input_tokens\":5,"
      + "\"cache_creation_input_tokens\":6,\"server_tool_use\":{\"web_search_requests\":1}}";

  @Test
  void aUsageObjectIsReadWithoutATreeAsTheTreeReadsIt() throws IOException {
    assertThat(streamed(USAGE)).isEqualTo(new TokenUsage(12, 34, 5, 6))
        .isEqualTo(TokenUsage.of(Json.tryParse(USAGE)));
    String odd = "{\"input_tokens\":\"7\",\"output_tokens\":null,\"cache_read_input_tokens\":[1]}";
    assertThat(streamed(odd)).isEqualTo(TokenUsage.of(Json.tryParse(odd))).isEqualTo(new TokenUsage(7, 0, 0, 0));
  }

  @Test
  void noUsageObjectIsNone() {
    assertThat(TokenUsage.of(Json.tryParse("{\"type\":\"message\"}").path("usage"))).isEqualTo(TokenUsage.NONE);
    assertThat(TokenUsage.of(Json.tryParse("{\"usage\":7}").path("usage"))).isEqualTo(TokenUsage.NONE);
  }

  /** {@link TokenUsage#of(JsonParser)} on {@code json}, checking it leaves the parser at the object's end. */
  private static TokenUsage streamed(String json) throws IOException {
    try (JsonParser p = Json.MAPPER.getFactory().createParser(json)) {
      assertThat(p.nextToken()).isEqualTo(JsonToken.START_OBJECT);
      TokenUsage usage = TokenUsage.of(p);
      assertThat(p.currentToken()).isEqualTo(JsonToken.END_OBJECT);
      assertThat(p.nextToken()).isNull();
      return usage;
    }
  }
}
