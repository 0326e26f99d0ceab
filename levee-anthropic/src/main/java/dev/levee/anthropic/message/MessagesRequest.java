package dev.levee.anthropic.message;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.levee.anthropic.error.ClientText;
import dev.levee.anthropic.error.RefusalReason;
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

  private static final JsonFactory JSON = dev.levee.anthropic.Json.MAPPER.getFactory(); // same limits everywhere

  /** Where one top-level field sits: its key's opening quote, and just past its value. */
  private record Span(String name, int keyStart, int valueStart, int valueEnd) {}

  private final byte[] body;
  private final String model;
  private final int modelStart; // byte offset of the model string's opening quote
  private final int modelEnd; // byte offset just past its closing quote
  private final boolean stream;
  private final java.util.List<Span> fields;
  private final long maxTokens; // -1 when absent or not an integer

  private MessagesRequest(byte[] body, String model, int modelStart, int modelEnd, boolean stream,
      java.util.List<Span> fields, long maxTokens) {
    this.body = body;
    this.model = model;
    this.modelStart = modelStart;
    this.modelEnd = modelEnd;
    this.stream = stream;
    this.fields = fields;
    this.maxTokens = maxTokens;
  }

  /**
   * Parses a request body.
   *
   * @throws InvalidRequestException when the body is not a single JSON object, names a top-level
   *     field twice, or {@code model} is missing or not a string, or {@code stream} is not a
   *     boolean, or it is not UTF-8 (a UTF-8 BOM is allowed), or holds an ill-formed UTF-8 sequence
   *     anywhere (its byte offset is named, {@link dev.levee.anthropic.Utf8}); the message is fit for an Anthropic-shaped 400 (it says what is wrong and where,
   *     never the parser's own words)
   */
  public static MessagesRequest parse(byte[] body) throws InvalidRequestException {
    Objects.requireNonNull(body, "body");
    if (body.length == 0) {
      throw new InvalidRequestException(RefusalReason.BODY_EMPTY, "request body is empty; expected a JSON object");
    }
    String model = null;
    int modelStart = -1;
    int modelEnd = -1;
    boolean stream = false;
    long maxTokens = -1;
    java.util.List<Span> fields = new java.util.ArrayList<>();
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new InvalidRequestException(RefusalReason.BODY_NOT_OBJECT, "request body must be a JSON object");
      }
      if (!dev.levee.anthropic.JsonSyntax.readsUtf8(p)) { // the parser took it for UTF-16 or UTF-32
        throw new InvalidRequestException(RefusalReason.BODY_NOT_UTF8, dev.levee.anthropic.JsonSyntax.NOT_UTF8);
      }
      refuseIfNotUtf8(body); // the parser skips most strings undecoded, and lets overlong forms and surrogates by
      JsonToken t;
      java.util.Set<String> seen = new java.util.HashSet<>();
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        if (!seen.add(field)) { // which one counts differs between parsers: Levee and the upstream must agree
          throw new InvalidRequestException(RefusalReason.DUPLICATE_FIELD,
              ClientText.shown(field) + ": given more than once");
        }
        int keyStart = (int) p.currentTokenLocation().getByteOffset();
        JsonToken value = p.nextToken();
        int valueStart = (int) p.currentTokenLocation().getByteOffset();
        if (field.equals("max_tokens") && value == JsonToken.VALUE_NUMBER_INT) {
          if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw new InvalidRequestException(RefusalReason.BAD_MAX_TOKENS,
                "max_tokens: Input should be a valid integer, was "
                + ClientText.shown(p.getText()));
          }
          maxTokens = p.getLongValue();
        }
        switch (field) {
          case "model" -> {
            if (value != JsonToken.VALUE_STRING) {
              throw new InvalidRequestException(RefusalReason.BAD_MODEL, "model: Input should be a valid string");
            }
            modelStart = (int) p.currentTokenLocation().getByteOffset();
            model = p.getText();
            p.finishToken();
            modelEnd = (int) p.currentLocation().getByteOffset();
          }
          case "stream" -> {
            if (value != JsonToken.VALUE_TRUE && value != JsonToken.VALUE_FALSE) {
              throw new InvalidRequestException(RefusalReason.BAD_STREAM, "stream: Input should be a valid boolean");
            }
            stream = value == JsonToken.VALUE_TRUE;
          }
          default -> p.skipChildren();
        }
        p.finishToken();
        fields.add(new Span(field, keyStart, valueStart, (int) p.currentLocation().getByteOffset()));
      }
      if (t != JsonToken.END_OBJECT) {
        throw new InvalidRequestException(RefusalReason.BODY_NOT_JSON, "request body is not valid JSON");
      }
      if (p.nextToken() != null) {
        throw new InvalidRequestException(RefusalReason.BODY_NOT_JSON, "request body has data after the JSON object");
      }
    } catch (InvalidRequestException e) {
      throw e;
    } catch (IOException e) {
      refuseIfNotUtf8(body); // the first token failed on a bad byte: say where, not what the parser made of it
      throw new InvalidRequestException(RefusalReason.BODY_NOT_JSON,
          "request body is not valid JSON: " + dev.levee.anthropic.JsonSyntax.describe(e));
    }
    if (model == null) {
      throw new InvalidRequestException(RefusalReason.MISSING_MODEL, "model: Field required");
    }
    if (model.isBlank()) {
      throw new InvalidRequestException(RefusalReason.BAD_MODEL, "model: String should have at least 1 character");
    }
    if (body[modelStart] != '"' || body[modelEnd - 1] != '"') {
      throw new IllegalStateException("model string offsets do not point at quotes");
    }
    return new MessagesRequest(body, model, modelStart, modelEnd, stream, java.util.List.copyOf(fields), maxTokens);
  }

  private static void refuseIfNotUtf8(byte[] body) throws InvalidRequestException {
    int bad = dev.levee.anthropic.Utf8.firstMalformed(body, 0, body.length);
    if (bad >= 0) {
      throw new InvalidRequestException(RefusalReason.BODY_NOT_UTF8, dev.levee.anthropic.Utf8.refusal(body, bad));
    }
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

  /** Whether the body has the top-level field {@code name} (e.g. {@code thinking}). */
  public boolean has(String name) {
    for (Span f : fields) {
      if (f.name().equals(name)) {
        return true;
      }
    }
    return false;
  }

  /** The top-level {@code max_tokens}, or -1 when absent or not an integer. */
  public long maxTokens() {
    return maxTokens;
  }

  /**
   * The body with the edits a tier imposes, every other byte unchanged: {@code model} replaced,
   * {@code max_tokens} lowered to at most {@code maxTokensCap} (when given and lower), and the
   * top-level fields named in {@code drop} removed (e.g. {@code thinking} below T0).
   *
   * @param maxTokensCap the cap, or 0 for none
   */
  public byte[] rewrite(String newModel, long maxTokensCap, java.util.Set<String> drop) {
    java.util.List<int[]> cuts = new java.util.ArrayList<>(); // {start, end, replacement index}
    java.util.List<byte[]> replacements = new java.util.ArrayList<>();
    if (!newModel.equals(model)) {
      cuts.add(new int[] {modelStart, modelEnd, replacements.size()});
      replacements.add(quote(newModel));
    }
    for (int i = 0; i < fields.size(); i++) {
      Span f = fields.get(i);
      if (maxTokensCap > 0 && f.name().equals("max_tokens") && maxTokens > maxTokensCap) {
        cuts.add(new int[] {f.valueStart(), f.valueEnd(), replacements.size()});
        replacements.add(Long.toString(maxTokensCap).getBytes(StandardCharsets.UTF_8));
      } else if (drop.contains(f.name())) {
        boolean last = i == fields.size() - 1;
        int start = last && i > 0 ? fields.get(i - 1).valueEnd() : f.keyStart();
        int end = last ? f.valueEnd() : fields.get(i + 1).keyStart();
        cuts.add(new int[] {start, end, replacements.size()});
        replacements.add(new byte[0]);
      }
    }
    if (cuts.isEmpty()) {
      return body;
    }
    cuts.sort(java.util.Comparator.comparingInt(c -> c[0]));
    int size = body.length;
    int at = 0;
    for (int[] cut : cuts) {
      if (cut[0] < at) {
        cut[2] = -1; // overlapping edits cannot happen for distinct fields; stay safe
        continue;
      }
      size += replacements.get(cut[2]).length - (cut[1] - cut[0]);
      at = cut[1];
    }
    byte[] out = new byte[size]; // the body copied once, in segments: a prompt can be megabytes
    int written = 0;
    at = 0;
    for (int[] cut : cuts) {
      if (cut[2] < 0) {
        continue;
      }
      byte[] replacement = replacements.get(cut[2]);
      System.arraycopy(body, at, out, written, cut[0] - at);
      written += cut[0] - at;
      System.arraycopy(replacement, 0, out, written, replacement.length);
      written += replacement.length;
      at = cut[1];
    }
    System.arraycopy(body, at, out, written, body.length - at);
    return out;
  }

  /** The body with {@code model} replaced and every other byte unchanged. */
  public byte[] withModel(String newModel) {
    return rewrite(newModel, 0, java.util.Set.of());
  }

  private static byte[] quote(String value) {
    byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(value);
    byte[] out = new byte[escaped.length + 2];
    out[0] = '"';
    System.arraycopy(escaped, 0, out, 1, escaped.length);
    out[out.length - 1] = '"';
    return out;
  }

  @Override
  public String toString() {
    return "MessagesRequest[model=" + model + ", stream=" + stream + ", " + body.length + " bytes]";
  }

  /** A request body Levee refuses before any upstream sees it: why, in words and as a code. */
  public static final class InvalidRequestException extends Exception {
    private final transient RefusalReason reason;

    public InvalidRequestException(RefusalReason reason, String message) {
      super(message);
      this.reason = reason;
    }

    /** Why, as a code that never quotes the body (the message may). */
    public RefusalReason reason() {
      return reason;
    }
  }
}
