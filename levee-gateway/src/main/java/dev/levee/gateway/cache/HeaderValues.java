package dev.levee.gateway.cache;

import dev.levee.anthropic.server.LowerCaseHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Case-insensitive reads of request headers ({@link LowerCaseHeaders#values}: one look-up in a
 * client's request, a scan in any other map); {@code name} lower-case, as every caller's is.
 */
public final class HeaderValues {

  private HeaderValues() {}

  /** The first non-blank value of {@code name}, trimmed; null when absent. */
  public static String first(Map<String, List<String>> headers, String name) {
    for (String value : LowerCaseHeaders.values(headers, name)) {
      if (value != null && !value.isBlank()) {
        return value.strip();
      }
    }
    return null;
  }

  /** Every comma-separated token of {@code name}, trimmed, blanks dropped. */
  static List<String> tokens(Map<String, List<String>> headers, String name) {
    List<String> values = LowerCaseHeaders.values(headers, name);
    if (values.isEmpty()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (String value : values) {
      if (value == null) {
        continue;
      }
      for (String token : value.split(",")) {
        String trimmed = token.strip();
        if (!trimmed.isEmpty()) {
          out.add(trimmed);
        }
      }
    }
    return out;
  }
}
