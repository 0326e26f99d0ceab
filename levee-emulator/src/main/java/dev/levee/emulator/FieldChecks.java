package dev.levee.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The API's refusals of optional top-level fields of a {@code POST /v1/messages} or {@code
 * /v1/messages/count_tokens} body, which {@link MessagesRequest} does not read. Each refusal is
 * the message of a 400 {@code invalid_request_error}; a field that is absent or {@code null} is
 * never refused, except on {@code count_tokens}.
 */
final class FieldChecks {

  /**
   * Fields of a Messages body that {@code count_tokens} refuses, present with any value ({@code
   * "stream": false} too): the API answers "max_tokens: Extra inputs are not permitted" (seen in
   * public threads, e.g. github.com/Wei-Shaw/sub2api/pull/4913). Other fields it may refuse the
   * same way are not listed until confirmed.
   */
  static final List<String> NOT_COUNTED = List.of("max_tokens", "stream");

  private FieldChecks() {}

  /** The refusal of {@code body}'s optional fields, or null when the API takes them. */
  static String refusal(ObjectNode body, boolean countTokens) {
    if (countTokens) {
      for (String field : NOT_COUNTED) {
        if (body.has(field)) {
          return field + ": Extra inputs are not permitted";
        }
      }
    } else {
      String refused = temperature(body.get("temperature"));
      if (refused == null) {
        refused = stopSequences(body.get("stop_sequences"));
      }
      if (refused != null) {
        return refused;
      }
    }
    return system(body.get("system"));
  }

  /**
   * {@code temperature}: a number from 0.0 to 1.0, the range the Messages API reference gives
   * (docs.anthropic.com/en/api/messages). The out-of-range wording is the API's ("temperature:
   * range: -1 or 0..1", anthropics/anthropic-sdk-python#893) without the {@code -1} it no longer
   * takes (same thread, 2026); "not a number" is worded like the API's other type errors.
   */
  private static String temperature(JsonNode temperature) {
    if (temperature == null || temperature.isNull()) {
      return null;
    }
    if (!temperature.isNumber()) {
      return "temperature: Input should be a valid number";
    }
    double value = temperature.asDouble();
    return value >= 0 && value <= 1 ? null : "temperature: range: 0..1";
  }

  /** {@code stop_sequences}: a list of strings (the SDKs' {@code List<String>}). */
  private static String stopSequences(JsonNode stopSequences) {
    if (stopSequences == null || stopSequences.isNull()) {
      return null;
    }
    if (!stopSequences.isArray()) {
      return "stop_sequences: Input should be a valid list";
    }
    for (int i = 0; i < stopSequences.size(); i++) {
      if (!stopSequences.get(i).isTextual()) {
        return "stop_sequences." + i + ": Input should be a valid string";
      }
    }
    return null;
  }

  /** {@code system}: a string or a list of content blocks (objects), as the SDKs type it. */
  private static String system(JsonNode system) {
    if (system == null || system.isNull() || system.isTextual()) {
      return null;
    }
    if (!system.isArray()) {
      return "system: Input should be a valid string or a list of content blocks";
    }
    for (int i = 0; i < system.size(); i++) {
      if (!system.get(i).isObject()) {
        return "system." + i + ": Input should be a valid dictionary";
      }
    }
    return null;
  }
}
