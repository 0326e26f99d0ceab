package dev.levee.gateway.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * The line of every key and list item in a YAML document, by path ({@code policy.retry},
 * {@code models.smart.chain[1]}), read in one streaming pass. Jackson reports some binding errors
 * at the end of the enclosing mapping; this lets messages point at the offending key instead.
 */
final class KeyLines {

  private final Map<String, Integer> lines = new HashMap<>();

  private KeyLines() {}

  /** Scans {@code yaml}; a document that does not parse yields an empty map (the binder reports why). */
  static KeyLines scan(String yaml) {
    KeyLines result = new KeyLines();
    try (JsonParser p = new YAMLFactory().createParser(yaml)) {
      Deque<String> path = new ArrayDeque<>();
      Deque<int[]> indexes = new ArrayDeque<>(); // per open array: the next item index; per object: null marker
      JsonToken token;
      while ((token = p.nextToken()) != null) {
        switch (token) {
          case FIELD_NAME -> result.lines.put(join(path, p.currentName()), p.currentTokenLocation().getLineNr());
          case START_OBJECT, START_ARRAY -> {
            String here = currentPath(p, path, indexes, result);
            path.push(here);
            indexes.push(token == JsonToken.START_ARRAY ? new int[] {0} : new int[] {-1});
          }
          case END_OBJECT, END_ARRAY -> {
            path.pop();
            indexes.pop();
          }
          default -> currentPath(p, path, indexes, result);
        }
      }
    } catch (IOException | RuntimeException e) {
      result.lines.clear();
    }
    return result;
  }

  /** The path of the value at the parser's token; records the line of list items. */
  private static String currentPath(JsonParser p, Deque<String> path, Deque<int[]> indexes, KeyLines result)
      throws IOException {
    String parent = path.isEmpty() ? "" : path.peek();
    if (!indexes.isEmpty() && indexes.peek()[0] >= 0) {
      String item = parent + "[" + indexes.peek()[0]++ + "]";
      result.lines.put(item, p.currentTokenLocation().getLineNr());
      return item;
    }
    String name = p.currentName();
    return name == null ? parent : join(path, name);
  }

  private static String join(Deque<String> path, String name) {
    String parent = path.isEmpty() ? "" : path.peek();
    return parent.isEmpty() ? name : parent + "." + name;
  }

  /** The line of {@code path}, or of its nearest ancestor that has one; 0 when unknown. */
  int lineOf(String path) {
    String p = path;
    while (!p.isEmpty()) {
      Integer line = lines.get(p);
      if (line != null) {
        return line;
      }
      int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
      p = cut < 0 ? "" : p.substring(0, cut);
    }
    return 0;
  }
}
