package dev.levee.anthropic.sse;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.NumberInput;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.message.TokenUsage;
import java.io.IOException;
import java.util.Arrays;

/**
 * The few fields of the events that frame a message's content which a relay needs — the top-level
 * {@code index}, the {@code content_block}'s {@code type} (of a {@code content_block_start}), and
 * the {@code usage} (the {@code message}'s in a {@code message_start}, the top-level one in any
 * other event, e.g. {@code message_delta}) — read from the UTF-8 bytes in one pass of Jackson's
 * streaming {@link JsonParser}, without building a tree of the event (issue 11: three trees per
 * stream, ~2.3 KB and a parser context each, for a handful of numbers).
 *
 * <p>Reads what the event's tree would say, and refuses what the mapper refuses: the whole payload
 * is checked to be one JSON object with nothing after it, and every number in it is converted as
 * the tree would convert it (an exponent a {@link java.math.BigDecimal} cannot hold is refused).
 * Values read as {@link JsonNode#asInt()}, {@link JsonNode#asText()} and {@link JsonNode#asLong()}
 * would on the tree: an absent index is 0, an absent type "", a member given twice counts as its
 * last. Immutable once read.
 */
public final class FrameFields {

  /** Marks data that is not one JSON object. */
  static final FrameFields NOT_AN_OBJECT = new FrameFields();

  private static final JsonFactory FACTORY = Json.MAPPER.getFactory();
  /** Reads one value inside the event (the tokens after it are the event's, not trailing garbage). */
  private static final ObjectReader VALUE = Json.MAPPER.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final String[] NO_NAMES = {};
  private static final long[] NO_COUNTS = {};

  private int index;
  private String model; // the message's, of a message_start
  private String blockType = "";
  private boolean blockIsObject;
  private boolean usageIsObject;
  // the usage's integral members, each once, with its last value
  private String[] names = NO_NAMES;
  private long[] counts = NO_COUNTS;
  private int size;
  private long input;
  private long output;
  private long cacheRead;
  private long cacheCreation;

  private FrameFields() {}

  /**
   * The fields of {@code data}, the payload of an event named {@code event}; {@link #NOT_AN_OBJECT}
   * when it is not one JSON object.
   */
  static FrameFields read(String event, byte[] data) {
    boolean usageInMessage = event.equals("message_start");
    FrameFields f = new FrameFields();
    try (JsonParser p = FACTORY.createParser(data)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return NOT_AN_OBJECT;
      }
      String name;
      while ((name = p.nextFieldName()) != null) {
        JsonToken value = p.nextToken();
        switch (name) {
          case "index" -> f.index = asInt(p, value);
          case "content_block" -> f.block(p, value);
          case "usage" -> {
            if (usageInMessage) {
              skip(p, value);
            } else {
              f.usage(p, value);
            }
          }
          case "message" -> {
            if (usageInMessage) {
              f.message(p, value);
            } else {
              skip(p, value);
            }
          }
          default -> skip(p, value);
        }
      }
      if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
        return NOT_AN_OBJECT; // trailing tokens, as the mapper refuses them
      }
      return f;
    } catch (IOException | RuntimeException e) {
      return NOT_AN_OBJECT; // RuntimeException: a number the tree could not convert either
    }
  }

  private void block(JsonParser p, JsonToken value) throws IOException {
    blockType = "";
    blockIsObject = value == JsonToken.START_OBJECT;
    if (!blockIsObject) {
      skip(p, value);
      return;
    }
    String name;
    while ((name = p.nextFieldName()) != null) {
      JsonToken token = p.nextToken();
      if (name.equals("type")) {
        blockType = asText(p, token);
      } else {
        skip(p, token);
      }
    }
  }

  private void message(JsonParser p, JsonToken value) throws IOException {
    clearUsage(); // a later message member replaces an earlier one, usage and all
    model = null;
    if (value != JsonToken.START_OBJECT) {
      skip(p, value);
      return;
    }
    String name;
    while ((name = p.nextFieldName()) != null) {
      JsonToken token = p.nextToken();
      if (name.equals("usage")) {
        usage(p, token);
      } else if (name.equals("model")) {
        model = asText(p, token);
      } else {
        skip(p, token);
      }
    }
  }

  private void usage(JsonParser p, JsonToken value) throws IOException {
    clearUsage();
    usageIsObject = value == JsonToken.START_OBJECT;
    if (!usageIsObject) {
      skip(p, value);
      return;
    }
    String name;
    while ((name = p.nextFieldName()) != null) {
      JsonToken token = p.nextToken();
      long count = asLong(p, token);
      switch (name) {
        case "input_tokens" -> input = count;
        case "output_tokens" -> output = count;
        case "cache_read_input_tokens" -> cacheRead = count;
        case "cache_creation_input_tokens" -> cacheCreation = count;
        default -> { }
      }
      if (token == JsonToken.VALUE_NUMBER_INT) {
        put(name, count);
      } else {
        remove(name); // the member's last value is what the tree keeps
      }
    }
  }

  private void clearUsage() {
    usageIsObject = false;
    size = 0;
    input = output = cacheRead = cacheCreation = 0;
  }

  private int find(String name) {
    for (int i = 0; i < size; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private void put(String name, long count) {
    int at = find(name);
    if (at < 0) {
      if (size == names.length) {
        names = Arrays.copyOf(names, Math.max(8, size * 2));
        counts = Arrays.copyOf(counts, names.length);
      }
      at = size++;
      names[at] = name;
    }
    counts[at] = count;
  }

  private void remove(String name) {
    int at = find(name);
    if (at >= 0) {
      size--;
      System.arraycopy(names, at + 1, names, at, size - at);
      System.arraycopy(counts, at + 1, counts, at, size - at);
    }
  }

  /**
   * The value the parser is at, as {@link JsonNode#asInt()} reads its node: a number truncated to
   * an int (a long's or big integer's low 32 bits), a numeric string parsed, true 1, anything else 0.
   */
  private static int asInt(JsonParser p, JsonToken token) throws IOException {
    return switch (token) {
      case VALUE_NUMBER_INT -> p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
          ? p.getBigIntegerValue().intValue() : (int) p.getLongValue();
      case VALUE_NUMBER_FLOAT -> p.getDecimalValue().intValue();
      case START_OBJECT, START_ARRAY -> {
        skip(p, token);
        yield 0;
      }
      default -> p.getValueAsInt(0);
    };
  }

  /**
   * The value the parser is at, as {@link JsonNode#asLong(long) asLong(0)} reads its node: a
   * number truncated to a long (a big integer's low 64 bits), a numeric string parsed, true 1,
   * anything else 0. Leaves the parser at the value's end.
   */
  private static long asLong(JsonParser p, JsonToken token) throws IOException {
    return switch (token) {
      case VALUE_NUMBER_INT -> p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
          ? p.getBigIntegerValue().longValue() : p.getLongValue();
      case VALUE_NUMBER_FLOAT -> p.getDecimalValue().longValue();
      case VALUE_STRING -> NumberInput.parseAsLong(p.getText(), 0);
      case VALUE_TRUE -> 1;
      case START_OBJECT, START_ARRAY -> {
        skip(p, token);
        yield 0;
      }
      default -> 0;
    };
  }

  /** The value the parser is at, as {@link JsonNode#asText()} reads its node ("" for an object or array). */
  private static String asText(JsonParser p, JsonToken token) throws IOException {
    return switch (token) {
      case VALUE_STRING -> p.getText();
      case START_OBJECT, START_ARRAY -> {
        skip(p, token);
        yield "";
      }
      default -> VALUE.<JsonNode>readTree(p).asText(); // a number, boolean or null: its node's own text
    };
  }

  /**
   * Passes the value the parser is at, as {@link JsonParser#skipChildren()} does, converting every
   * number in it as the tree would (so that what the tree refuses is refused here).
   */
  static void skip(JsonParser p, JsonToken token) throws IOException {
    int depth = 0;
    JsonToken t = token;
    while (true) {
      if (t == null) {
        throw new IOException("unexpected end of input"); // the parser reports it first; kept for safety
      }
      switch (t) {
        case START_OBJECT, START_ARRAY -> depth++;
        case END_OBJECT, END_ARRAY -> depth--;
        case VALUE_NUMBER_INT -> {
          if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            p.getBigIntegerValue();
          }
        }
        case VALUE_NUMBER_FLOAT -> p.getDecimalValue();
        default -> { }
      }
      if (depth == 0) {
        return;
      }
      t = p.nextToken();
    }
  }

  /** The top-level {@code index}; 0 when absent. */
  public int index() {
    return index;
  }

  /**
   * The {@code message}'s {@code model} of a {@code message_start}, as {@link JsonNode#asText(String)
   * asText(null)} reads it from the tree; null when absent or another event.
   */
  public String model() {
    return model;
  }

  /** Whether the usage has an integral member {@code name} (e.g. {@code input_tokens}). */
  public boolean hasUsageCount(String name) {
    return find(name) >= 0;
  }

  /** The {@code content_block}'s {@code type}, e.g. {@code text}; "" when absent. */
  public String blockType() {
    return blockType;
  }

  /** Whether there is a {@code content_block} and it is a JSON object. */
  public boolean blockIsObject() {
    return blockIsObject;
  }

  /** The number of integral members of the usage (0 when there is no usage object). */
  public int usageCounts() {
    return size;
  }

  /** The name of integral usage member {@code i} (from 0, below {@link #usageCounts()}). */
  public String usageName(int i) {
    return names[i];
  }

  /** The value of integral usage member {@code i}, as {@link JsonNode#asLong()} reads it. */
  public long usageCount(int i) {
    return counts[i];
  }

  /** The usage's token counts, as {@link TokenUsage#of(JsonNode)} reads them from the tree. */
  public TokenUsage tokenUsage() {
    return usageIsObject ? new TokenUsage(input, output, cacheRead, cacheCreation) : TokenUsage.NONE;
  }
}
