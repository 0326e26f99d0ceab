package dev.levee.gateway.e2e;

import java.util.Map;

/** One {@code /metrics} text, read series by series. */
record Scrape(String text) {

  /**
   * The value of the series {@code name} whose labels include {@code labels}; fails when none or
   * several match.
   */
  double value(String name, Map<String, String> labels) {
    Double found = null;
    for (String line : text.split("\n")) {
      if (line.startsWith("#") || !(line.startsWith(name + "{") || line.startsWith(name + " "))) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      String series = line.substring(0, space);
      if (labels.entrySet().stream().allMatch(e -> series.contains(e.getKey() + "=\"" + e.getValue() + "\""))) {
        if (found != null) {
          throw new AssertionError("several series " + name + labels + " in\n" + text);
        }
        found = Double.parseDouble(line.substring(space + 1));
      }
    }
    if (found == null) {
      throw new AssertionError("no series " + name + labels + " in\n" + text);
    }
    return found;
  }

  double value(String name) {
    return value(name, Map.of());
  }

  /** Whether a metric family of this exact name has a sample. */
  boolean has(String name) {
    for (String line : text.split("\n")) {
      if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
        return true;
      }
    }
    return false;
  }
}
