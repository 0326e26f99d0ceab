package dev.levee.anthropic.message;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A Messages API request body kept as the client's raw bytes.
 *
 * <p>Levee owns only the top-level {@code model} (rewritten per target); every other byte —
 * unknown fields, new roles and block types, number formatting, key order, whitespace — reaches
 * the upstream unchanged (DESIGN.md promise 1). Parsing validates that the body is one JSON
 * object and records where the {@code model} string sits, so {@link #withModel(String)} splices a
 * new value without re-serializing anything.
 *
 * <p>Immutable and thread-safe.
 */
public final class MessagesRequest {

  private static final JsonFactory JSON = JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder()
          .maxStringLength(Integer.MAX_VALUE)
          .maxNestingDepth(2000)
          .build())
      .build();

  private final byte[] body;
  private final String model;
  private final int modelStart; // byte offset of the model string's opening quote
  private final int modelEnd; // byte offset just past its closing quote
  private final boolean stream;

  private MessagesRequest(byte[] body, String model, int modelStart, int modelEnd, boolean stream) {
    this.body = body;
    this.model = model;
    this.modelStart = modelStart;
    this.modelEnd = modelEnd;
    this.stream = stream;
  }

  /**
   * Parses a request body.
   *
   * @throws InvalidRequestException when the body is not a single JSON object, or {@code model}
   *     is missing or not a string, or {@code stream} is not a boolean; the message is fit for an
   *     Anthropic-shaped 400
   */
  public static MessagesRequest parse(byte[] body) throws InvalidRequestException {
    Objects.requireNonNull(body, "body");
    if (body.length == 0) {
      throw new InvalidRequestException("request body is empty; expected a JSON object");
    }
    String model = null;
    int modelStart = -1;
    int modelEnd = -1;
    boolean stream = false;
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new InvalidRequestException("request body must be a JSON object");
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "model" -> {
            if (value != JsonToken.VALUE_STRING) {
              throw new InvalidRequestException("model: Input should be a valid string");
            }
            modelStart = (int) p.currentTokenLocation().getByteOffset();
            model = p.getText();
            p.finishToken();
            modelEnd = (int) p.currentLocation().getByteOffset();
          }
          case "stream" -> {
            if (value != JsonToken.VALUE_TRUE && value != JsonToken.VALUE_FALSE) {
              throw new InvalidRequestException("stream: Input should be a valid boolean");
            }
            stream = value == JsonToken.VALUE_TRUE;
          }
          default -> p.skipChildren();
        }
      }
      if (t != JsonToken.END_OBJECT) {
        throw new InvalidRequestException("request body is not valid JSON");
      }
      if (p.nextToken() != null) {
        throw new InvalidRequestException("request body has data after the JSON object");
      }
    } catch (InvalidRequestException e) {
      throw e;
    } catch (IOException e) {
      throw new InvalidRequestException("request body is not valid JSON: " + firstLine(originalMessage(e)));
    }
    if (model == null) {
      throw new InvalidRequestException("model: Field required");
    }
    if (body[modelStart] != '"' || body[modelEnd - 1] != '"') {
      throw new IllegalStateException("model string offsets do not point at quotes");
    }
    return new MessagesRequest(body, model, modelStart, modelEnd, stream);
  }

  /** The {@code model} the client asked for (an alias or a real model name). */
  public String model() {
    return model;
  }

  /** Whether the client asked for a stream ({@code "stream": true}). */
  public boolean stream() {
    return stream;
  }

  /** The body exactly as received. Do not modify the returned array. */
  public byte[] body() {
    return body;
  }

  /** Body size in bytes. */
  public int size() {
    return body.length;
  }

  /** The body with {@code model} replaced and every other byte unchanged. */
  public byte[] withModel(String newModel) {
    if (newModel.equals(model)) {
      return body;
    }
    byte[] quoted = quote(newModel);
    byte[] out = new byte[body.length - (modelEnd - modelStart) + quoted.length];
    System.arraycopy(body, 0, out, 0, modelStart);
    System.arraycopy(quoted, 0, out, modelStart, quoted.length);
    System.arraycopy(body, modelEnd, out, modelStart + quoted.length, body.length - modelEnd);
    return out;
  }

  private static byte[] quote(String value) {
    byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(value);
    byte[] out = new byte[escaped.length + 2];
    out[0] = '"';
    System.arraycopy(escaped, 0, out, 1, escaped.length);
    out[out.length - 1] = '"';
    return out;
  }

  private static String firstLine(String message) {
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  @Override
  public String toString() {
    return "MessagesRequest[model=" + model + ", stream=" + stream + ", " + body.length + " bytes]";
  }

  /** A request body Levee refuses before any upstream sees it. */
  public static final class InvalidRequestException extends Exception {
    public InvalidRequestException(String message) {
      super(message);
    }
  }

  private static String originalMessage(IOException e) {
    return e instanceof com.fasterxml.jackson.core.JacksonException je ? je.getOriginalMessage() : e.getMessage();
  }
}
