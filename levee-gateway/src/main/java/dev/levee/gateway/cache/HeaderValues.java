package dev.levee.gateway.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Case-insensitive reads of request headers kept as sent (names in any case). */
public final class HeaderValues {

  private HeaderValues() {}

  /** Every value of {@code name}, across repeated headers, in order; empty when absent. Do not modify it. */
  static List<String> all(Map<String, List<String>> headers, String name) {
    List<String> out = List.of();
    for (Map.Entry<String, List<String>> header : headers.entrySet()) {
      if (header.getKey() != null && header.getKey().equalsIgnoreCase(name) && header.getValue() != null) {
        out = out.isEmpty() ? header.getValue() : concat(out, header.getValue()); // mostly one: no copy
      }
    }
    return out;
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> both = new ArrayList<>(a.size() + b.size());
    both.addAll(a);
    both.addAll(b);
    return both;
  }

  /** The first non-blank value of {@code name}, trimmed; null when absent. */
  public static String first(Map<String, List<String>> headers, String name) {
    for (Map.Entry<String, List<String>> header : headers.entrySet()) {
      if (header.getKey() != null && header.getKey().equalsIgnoreCase(name) && header.getValue() != null) {
        for (String value : header.getValue()) {
          if (value != null && !value.isBlank()) {
            return value.strip();
          }
        }
      }
    }
    return null;
  }

  /** Every comma-separated token of {@code name}, trimmed, blanks dropped. */
  static List<String> tokens(Map<String, List<String>> headers, String name) {
    List<String> values = all(headers, name);
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
