package dev.levee.anthropic.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request's headers with every name in lower case (HTTP field names are case-insensitive, RFC
 * 9110 §5.1), names in arrival order, a repeated name's values in order. {@link #values} reads
 * one by {@link #get}; a map of any other type may hold names in any case, and is scanned. Built
 * by {@link ServerIo#headers}; not thread-safe.
 */
public final class LowerCaseHeaders extends LinkedHashMap<String, List<String>> {

  LowerCaseHeaders() {}

  /**
   * Every value of the header {@code name} (lower-case), across names that differ only in case, in
   * order; empty when absent. One look-up in a {@code LowerCaseHeaders}; in any other map (a stored
   * job's headers, a test's) every name is compared without case. Do not modify the list.
   */
  public static List<String> values(Map<String, List<String>> headers, String name) {
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
}
