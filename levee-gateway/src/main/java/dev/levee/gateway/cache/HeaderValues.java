package dev.levee.gateway.cache;

import dev.levee.anthropic.server.LowerCaseHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Case-insensitive reads of request headers: by {@link Map#get} in a {@link LowerCaseHeaders} (a
 * client's request: {@code name} must be lower-case, as every caller's is), else by comparing every
 * name without case (a job's headers as stored, a test's map).
 */
public final class HeaderValues {

  private HeaderValues() {}

  /** Every value of {@code name}, across repeated headers, in order; empty when absent. Do not modify it. */
  static List<String> all(Map<String, List<String>> headers, String name) {
    if (headers instanceof LowerCaseHeaders lower) {
      List<String> values = lower.get(name);
      return values == null ? List.of() : values;
    }
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
    if (headers instanceof LowerCaseHeaders lower) {
      return firstOf(lower.get(name));
    }
    for (Map.Entry<String, List<String>> header : headers.entrySet()) {
      if (header.getKey() != null && header.getKey().equalsIgnoreCase(name)) {
        String value = firstOf(header.getValue());
        if (value != null) {
          return value;
        }
      }
    }
    return null;
  }

  private static String firstOf(List<String> values) {
    if (values != null) {
      for (String value : values) {
        if (value != null && !value.isBlank()) {
          return value.strip();
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
