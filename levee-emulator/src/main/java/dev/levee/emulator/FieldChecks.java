package dev.levee.emulator;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The API's refusals of optional top-level fields of a {@code POST /v1/messages} or {@code
 * /v1/messages/count_tokens} body, which {@link MessagesRequest} does not read. Each refusal is
 * the message of a 400 {@code invalid_request_error}.
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
    }
    return null;
  }
}
