package dev.levee.anthropic.message;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

/**
 * Token usage of one answer as the upstream reported it in its {@code usage} object (Anthropic
 * Messages API: {@code input_tokens}, {@code output_tokens}, {@code cache_read_input_tokens},
 * {@code cache_creation_input_tokens}). All counts in tokens, 0 when absent.
 */
public record TokenUsage(long input, long output, long cacheRead, long cacheCreation) {

  /** No usage (nothing reported). */
  public static final TokenUsage NONE = new TokenUsage(0, 0, 0, 0);

  /** Reads a {@code usage} object; a missing or non-object node gives {@link #NONE}. */
  public static TokenUsage of(JsonNode usage) {
    if (usage == null || !usage.isObject()) {
      return NONE;
    }
    return new TokenUsage(usage.path("input_tokens").asLong(0), usage.path("output_tokens").asLong(0),
        usage.path("cache_read_input_tokens").asLong(0), usage.path("cache_creation_input_tokens").asLong(0));
  }

  /**
   * The counts of the {@code usage} object the parser is at the start of (as {@link #of} reads
   * them); leaves the parser at the object's end.
   *
   * @throws IOException when the JSON is broken
   */
  public static TokenUsage of(JsonParser p) throws IOException {
    long input = 0;
    long output = 0;
    long cacheRead = 0;
    long cacheCreation = 0;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      long count = value.isScalarValue() ? p.getValueAsLong(0) : 0;
      switch (name) {
        case "input_tokens" -> input = count;
        case "output_tokens" -> output = count;
        case "cache_read_input_tokens" -> cacheRead = count;
        case "cache_creation_input_tokens" -> cacheCreation = count;
        default -> { }
      }
      p.skipChildren();
    }
    return new TokenUsage(input, output, cacheRead, cacheCreation);
  }

  /**
   * Each field the larger of the two: a stream reports usage in {@code message_start} and again,
   * growing (and summed over recovered attempts), in its final {@code message_delta}.
   */
  public TokenUsage max(TokenUsage other) {
    return new TokenUsage(Math.max(input, other.input), Math.max(output, other.output),
        Math.max(cacheRead, other.cacheRead), Math.max(cacheCreation, other.cacheCreation));
  }

  /** Each field the sum of the two: the usage of two calls (or two parts of one answer) together. */
  public TokenUsage plus(TokenUsage other) {
    return new TokenUsage(input + other.input, output + other.output, cacheRead + other.cacheRead,
        cacheCreation + other.cacheCreation);
  }

  public boolean isEmpty() {
    return input == 0 && output == 0 && cacheRead == 0 && cacheCreation == 0;
  }
}
