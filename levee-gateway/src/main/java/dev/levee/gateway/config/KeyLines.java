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
 * Where every key and list item of a YAML document is, by path ({@code policy.retry}, {@code
 * models.smart.chain[1]}), read in one streaming pass: a single value's own line and column, a
 * mapping's or list's key. Jackson reports some binding errors at the end of the enclosing
 * mapping; this lets messages point at the offending value instead.
 */
final class KeyLines {

  /** A place in the document, both 1-based; {@link #UNKNOWN} is line 0. */
  record Position(int line, int column) {

    static final Position UNKNOWN = new Position(0, 0);

    /** {@code line 2, column 9}; without a column {@code line 2}. */
    @Override
    public String toString() {
      return "line " + line + (column > 0 ? ", column " + column : "");
    }
  }

  private final Map<String, Position> positions = new HashMap<>();
  private final Map<String, Position> keys = new HashMap<>();

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
          case FIELD_NAME -> {
            String key = join(path, p.currentName());
            result.keys.put(key, position(p));
            result.positions.put(key, position(p));
          }
          case START_OBJECT, START_ARRAY -> {
            String here = currentPath(p, path, indexes, result);
            path.push(here);
            indexes.push(token == JsonToken.START_ARRAY ? new int[] {0} : new int[] {-1});
          }
          case END_OBJECT, END_ARRAY -> {
            path.pop();
            indexes.pop();
          }
          default -> { // a single value: where the value itself is, not its key
            String here = currentPath(p, path, indexes, result);
            if (!here.isEmpty()) {
              result.positions.put(here, position(p));
            }
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      result.positions.clear();
      result.keys.clear();
    }
    return result;
  }

  /** The path of the value at the parser's token; records the line of list items. */
  private static String currentPath(JsonParser p, Deque<String> path, Deque<int[]> indexes, KeyLines result)
      throws IOException {
    String parent = path.isEmpty() ? "" : path.peek();
    if (!indexes.isEmpty() && indexes.peek()[0] >= 0) {
      String item = parent + "[" + indexes.peek()[0]++ + "]";
      result.positions.put(item, position(p));
      return item;
    }
    String name = p.currentName();
    return name == null ? parent : join(path, name);
  }

  private static Position position(JsonParser p) {
    return new Position(p.currentTokenLocation().getLineNr(), p.currentTokenLocation().getColumnNr());
  }

  private static String join(Deque<String> path, String name) {
    String parent = path.isEmpty() ? "" : path.peek();
    return parent.isEmpty() ? name : parent + "." + name;
  }

  /** The keys written directly under the mapping at {@code path}, in no particular order. */
  java.util.List<String> keysUnder(String path) {
    String prefix = path.isEmpty() ? "" : path + ".";
    return keys.keySet().stream().filter(k -> k.startsWith(prefix) && k.length() > prefix.length())
        .map(k -> k.substring(prefix.length())).filter(k -> k.indexOf('.') < 0 && k.indexOf('[') < 0).toList();
  }

  /** Whether {@code path} itself (not only an ancestor) is written in the document. */
  boolean has(String path) {
    return positions.containsKey(path);
  }

  /** Where the key of {@code path} is written (an unknown key's place), else {@link #of}. */
  Position keyOf(String path) {
    Position at = keys.get(path);
    return at != null ? at : of(path);
  }

  /** Where {@code path} is, or its nearest ancestor that is written; {@link Position#UNKNOWN} when none is. */
  Position of(String path) {
    String p = path;
    while (!p.isEmpty()) {
      Position at = positions.get(p);
      if (at != null) {
        return at;
      }
      int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
      p = cut < 0 ? "" : p.substring(0, cut);
    }
    return Position.UNKNOWN;
  }
}
