package dev.levee.gateway.health;

import com.fasterxml.jackson.databind.JsonNode;

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
   * Each field the larger of the two: a stream reports usage in {@code message_start} and again,
   * growing (and summed over recovered attempts), in its final {@code message_delta}.
   */
  public TokenUsage max(TokenUsage other) {
    return new TokenUsage(Math.max(input, other.input), Math.max(output, other.output),
        Math.max(cacheRead, other.cacheRead), Math.max(cacheCreation, other.cacheCreation));
  }

  public boolean isEmpty() {
    return input == 0 && output == 0 && cacheRead == 0 && cacheCreation == 0;
  }
}
