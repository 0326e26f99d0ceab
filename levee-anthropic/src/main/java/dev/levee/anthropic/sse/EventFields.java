package dev.levee.anthropic.sse;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The few fields of a stream event that a relay needs for every content delta and block stop —
 * the top-level {@code index}, and the {@code delta}'s {@code type}, {@code text}, {@code
 * thinking}, {@code partial_json}, {@code signature} and {@code citation} — read from the UTF-8
 * bytes in one pass of Jackson's streaming {@link JsonParser}, without building a tree of the
 * event (the common text delta by {@link DeltaScan}, without a parser). The whole payload is still
 * checked to be one JSON object. Accessors read as {@link
 * JsonNode#asText()} and {@link JsonNode#asInt()} would on the tree: absent text is {@code ""},
 * an absent index 0. Immutable once read.
 */
public final class EventFields {

  /** Marks data that is not one JSON object. */
  static final EventFields NOT_AN_OBJECT = new EventFields();

  /** The mapper's factory: same limits, and its buffer pool shared across threads. */
  private static final JsonFactory FACTORY = Json.MAPPER.getFactory();

  /** Reads one value inside the event (the tokens after it are the event's, not trailing garbage). */
  private static final ObjectReader VALUE = Json.MAPPER.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  // set by the parser, then never changed
  int index;
  int indexStart = -1; // byte offsets of the index when it is a plain int, else -1
  int indexEnd = -1;
  String deltaType = "";
  String text;
  String thinking;
  String partialJson;
  String signature;
  JsonNode citation = MissingNode.getInstance();

  EventFields() {}

  /** The fields of {@code data}, or {@link #NOT_AN_OBJECT} when it is not one JSON object. */
  static EventFields read(byte[] data) {
    EventFields scanned = DeltaScan.scan(data); // the common text delta, without a parser
    if (scanned != null) {
      return scanned;
    }
    EventFields f = new EventFields();
    try (JsonParser p = FACTORY.createParser(data)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return NOT_AN_OBJECT;
      }
      String name;
      while ((name = p.nextFieldName()) != null) {
        JsonToken value = p.nextToken();
        switch (name) {
          case "index" -> f.index(p, value);
          case "delta" -> f.delta(p, value);
          default -> p.skipChildren();
        }
      }
      if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
        return NOT_AN_OBJECT; // trailing tokens, as the mapper refuses them
      }
      return f;
    } catch (IOException | RuntimeException e) {
      return NOT_AN_OBJECT;
    }
  }

  private void index(JsonParser p, JsonToken value) throws IOException {
    indexStart = -1;
    indexEnd = -1;
    index = switch (value) {
      case VALUE_NUMBER_INT -> {
        if (p.getNumberType() == JsonParser.NumberType.INT) {
          indexStart = (int) p.currentTokenLocation().getByteOffset();
          indexEnd = indexStart + p.getTextLength();
          yield p.getIntValue();
        }
        yield p.getBigIntegerValue().intValue();
      }
      case VALUE_NUMBER_FLOAT -> p.getDecimalValue().intValue();
      case START_OBJECT, START_ARRAY -> {
        p.skipChildren();
        yield 0;
      }
      default -> p.getValueAsInt(0);
    };
  }

  /** A {@code delta} member starts (again): the last one wins, as in a tree. */
  void clearDelta() {
    deltaType = "";
    text = thinking = partialJson = signature = null;
    citation = MissingNode.getInstance();
  }

  private void delta(JsonParser p, JsonToken value) throws IOException {
    clearDelta();
    if (value != JsonToken.START_OBJECT) {
      p.skipChildren();
      return;
    }
    String name;
    while ((name = p.nextFieldName()) != null) {
      JsonToken token = p.nextToken();
      switch (name) {
        case "type" -> deltaType = text(p, token);
        case "text" -> text = text(p, token);
        case "thinking" -> thinking = text(p, token);
        case "partial_json" -> partialJson = text(p, token);
        case "signature" -> signature = text(p, token);
        case "citation" -> citation = VALUE.readTree(p);
        default -> p.skipChildren();
      }
    }
  }

  /** As {@link JsonNode#asText()}: a scalar's text, "" for an object or array. */
  private static String text(JsonParser p, JsonToken token) throws IOException {
    if (token.isStructStart()) {
      p.skipChildren();
      return "";
    }
    return p.getText();
  }

  /** The top-level {@code index}; 0 when absent. */
  public int index() {
    return index;
  }

  /** The {@code delta}'s {@code type}, e.g. {@code text_delta}; "" when absent. */
  public String deltaType() {
    return deltaType;
  }

  /** The {@code delta}'s {@code text}; "" when absent. */
  public String text() {
    return text == null ? "" : text;
  }

  /** The {@code delta}'s {@code thinking}; "" when absent. */
  public String thinking() {
    return thinking == null ? "" : thinking;
  }

  /** The {@code delta}'s {@code partial_json}; "" when absent. */
  public String partialJson() {
    return partialJson == null ? "" : partialJson;
  }

  /** The {@code delta}'s {@code signature}; "" when absent. */
  public String signature() {
    return signature == null ? "" : signature;
  }

  /** The {@code delta}'s {@code citation}; a missing node when absent. Shared: do not modify. */
  public JsonNode citation() {
    return citation;
  }

  /** Data with a new index, and its fields. */
  record Rewritten(byte[] data, EventFields fields) {}

  /**
   * {@code data} (whose fields these are) with its top-level {@code index} set to {@code index}:
   * the digits replaced in place when the index is a plain int, else through a tree (the index
   * added or replaced, as {@link ObjectNode#put(String, int)} does).
   */
  Rewritten withIndex(byte[] data, int newIndex) {
    if (indexStart >= 0) {
      byte[] digits = Integer.toString(newIndex).getBytes(StandardCharsets.US_ASCII);
      byte[] out = new byte[data.length - (indexEnd - indexStart) + digits.length];
      System.arraycopy(data, 0, out, 0, indexStart);
      System.arraycopy(digits, 0, out, indexStart, digits.length);
      System.arraycopy(data, indexEnd, out, indexStart + digits.length, data.length - indexEnd);
      EventFields f = copy();
      f.index = newIndex;
      f.indexEnd = indexStart + digits.length;
      return new Rewritten(out, f);
    }
    ObjectNode tree = (ObjectNode) Json.tryParse(data);
    tree.put("index", newIndex);
    byte[] out = Json.bytes(tree);
    return new Rewritten(out, read(out));
  }

  private EventFields copy() {
    EventFields f = new EventFields();
    f.index = index;
    f.indexStart = indexStart;
    f.indexEnd = indexEnd;
    f.deltaType = deltaType;
    f.text = text;
    f.thinking = thinking;
    f.partialJson = partialJson;
    f.signature = signature;
    f.citation = citation;
    return f;
  }
}
