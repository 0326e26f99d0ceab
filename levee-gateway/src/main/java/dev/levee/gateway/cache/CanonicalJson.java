package dev.levee.gateway.cache;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.levee.anthropic.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The canonical form {@link CacheKey} hashes, written in one streaming pass over a request body's
 * bytes — no tree: object keys sorted (a name given twice counts once, with its last value, as
 * in a parsed tree), array order kept, numbers by value ({@link #number}), strings as their
 * decoded text re-encoded (copied as sent when that is what they are already: {@link
 * #writeString}), no whitespace; at the top level {@code model}, {@code stream} and {@code
 * metadata} left out. Byte for byte what writing the parsed tree in that order gives.
 *
 * <p>Each object is written as it comes; when it ends, its fields are put in order in place
 * when they were not already (a request's objects mostly are, or are small). Not thread-safe:
 * one pass per call.
 */
final class CanonicalJson {

  /** Top-level fields that cannot change the answer (see {@link CacheKey}). */
  static final Set<String> IGNORED_FIELDS = Set.of("model", "stream", "metadata");

  private CanonicalJson() {}

  /** A growable byte array the generator writes into, rewritable in place. */
  static final class Buffer extends OutputStream {
    private byte[] bytes;
    private int size;

    Buffer(int capacity) {
      bytes = new byte[capacity];
    }

    @Override
    public void write(int b) {
      ensure(1);
      bytes[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      ensure(len);
      System.arraycopy(b, off, bytes, size, len);
      size += len;
    }

    private void ensure(int more) {
      if (size + more > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(size + more, bytes.length * 2));
      }
    }

    byte[] array() {
      return bytes;
    }

    int size() {
      return size;
    }
  }

  /**
   * Writes the canonical form of {@code body}, a JSON object, at the generator's position.
   *
   * @param out a generator writing into a {@link Buffer}, and nothing else
   * @throws IOException when {@code body} is not one JSON object, or is beyond the parser's or
   *     generator's limits
   */
  static void writeBody(byte[] body, JsonGenerator out) throws IOException {
    Buffer buffer = (Buffer) out.getOutputTarget();
    try (JsonParser p = Json.MAPPER.getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("request body must be a JSON object");
      }
      List<Fields> open = new ArrayList<>(); // the objects being written, innermost last
      JsonToken t = JsonToken.START_OBJECT;
      do {
        switch (t) {
          case START_OBJECT -> {
            out.writeStartObject();
            open.add(new Fields(position(out, buffer)));
          }
          case END_OBJECT -> {
            Fields fields = open.removeLast();
            if (!fields.sorted) {
              out.flush();
              fields.sortInPlace(buffer);
            }
            out.writeEndObject();
          }
          case FIELD_NAME -> {
            String name = p.currentName();
            if (open.size() == 1 && IGNORED_FIELDS.contains(name)) {
              p.nextToken();
              p.skipChildren();
            } else {
              open.getLast().add(name, position(out, buffer));
              out.writeFieldName(name);
            }
          }
          case START_ARRAY -> out.writeStartArray();
          case END_ARRAY -> out.writeEndArray();
          case VALUE_STRING -> writeString(p, body, out);
          case VALUE_NUMBER_INT -> out.writeNumber(switch (p.getNumberType()) {
            case INT, LONG -> integer(p.getLongValue());
            default -> number(new BigDecimal(p.getBigIntegerValue()));
          });
          case VALUE_NUMBER_FLOAT -> out.writeNumber(number(p.getDecimalValue()));
          case VALUE_TRUE, VALUE_FALSE -> out.writeBoolean(t == JsonToken.VALUE_TRUE);
          case VALUE_NULL -> out.writeNull();
          default -> throw new IOException("unexpected " + t);
        }
      } while (!open.isEmpty() && (t = p.nextToken()) != null);
      if (!open.isEmpty() || p.nextToken() != null) {
        throw new IOException("request body is not one complete JSON object");
      }
    }
  }

  /**
   * A string as the generator writes its decoded text: the bytes as sent when they already are
   * that — no escape but the generator's own short ones ({@code \" \\ \b \f \n \r \t}) and no
   * character beyond U+FFFF (the body is UTF-8, checked at ingress, and the generator writes every
   * other character as its UTF-8 bytes) — else
   * decoded and re-encoded. Most strings of a prompt take the first way, which neither decodes nor
   * re-encodes them: that was most of the key's cost for a long prompt (docs/benchmarks.md, session 25).
   */
  private static void writeString(JsonParser p, byte[] body, JsonGenerator out) throws IOException {
    long open = p.currentTokenLocation().getByteOffset();
    int end = open >= 0 && open < body.length && body[(int) open] == '"' ? closingQuote(body, (int) open + 1) : -1;
    if (end < 0) {
      out.writeString(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
    } else {
      out.writeRawUTF8String(body, (int) open + 1, end - (int) open - 1); // the parser skips it, undecoded
    }
  }

  /**
   * The index of the closing quote of the string whose text starts at {@code from}, or -1 when the
   * text holds an escape the generator would write otherwise (a Unicode escape, an escaped slash),
   * a character beyond U+FFFF (four UTF-8 bytes, which the generator writes differently), a raw
   * control character (the parser refuses it), or has no end.
   */
  static int closingQuote(byte[] body, int from) {
    for (int i = from; i < body.length; i++) {
      int b = body[i] & 0xff;
      if (b == '"') {
        return i;
      }
      if (b < 0x20 || b >= 0xf0) { // a raw control character; a character beyond U+FFFF, which the generator writes otherwise
        return -1;
      }
      if (b == '\\') {
        if (++i == body.length) {
          return -1;
        }
        switch (body[i]) {
          case '"', '\\', 'b', 'f', 'n', 'r', 't' -> { }
          default -> {
            return -1;
          }
        }
      }
    }
    return -1;
  }

  /** A number by value: {@code 0.7}, {@code 0.70} and {@code 7E-1} are {@code 0.7}; {@code 1000} and {@code 1E3} are {@code 1E+3}. */
  static String number(BigDecimal value) {
    return value.signum() == 0 ? "0" : value.stripTrailingZeros().toString();
  }

  /** As {@link #number}, without a BigDecimal for the common case (no trailing zero). */
  static String integer(long value) {
    return value % 10 != 0 ? Long.toString(value) : number(BigDecimal.valueOf(value));
  }

  /** Where the generator's next byte goes in {@code buffer}. */
  private static int position(JsonGenerator out, Buffer buffer) {
    return buffer.size() + out.getOutputBuffered();
  }

  /** The fields of one object being written: names, and where each starts (its comma included). */
  private static final class Fields {
    private final int start; // just past '{'
    private String[] names = new String[4];
    private int[] starts = new int[4];
    private int count;
    private boolean sorted = true; // strictly ascending so far: nothing to do at the end

    Fields(int start) {
      this.start = start;
    }

    void add(String name, int at) {
      if (count == names.length) {
        names = Arrays.copyOf(names, count * 2);
        starts = Arrays.copyOf(starts, count * 2);
      }
      sorted &= count == 0 || names[count - 1].compareTo(name) < 0;
      names[count] = name;
      starts[count++] = at;
    }

    /** Puts the fields, all flushed into {@code buffer}, in name order; of a name given twice only the last stays. */
    void sortInPlace(Buffer buffer) {
      int end = buffer.size();
      byte[] copy = Arrays.copyOfRange(buffer.array(), start, end);
      Integer[] order = new Integer[count];
      for (int i = 0; i < count; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (a, b) -> { // by name, then by position: the last of a name is the one kept
        int byName = names[a].compareTo(names[b]);
        return byName != 0 ? byName : Integer.compare(a, b);
      });
      buffer.size = start;
      boolean first = true;
      for (int k = 0; k < count; k++) {
        int i = order[k];
        if (k + 1 < count && names[order[k + 1]].equals(names[i])) {
          continue; // a later value of the same name replaces this one
        }
        int from = starts[i] - start + (i == 0 ? 0 : 1); // the generator wrote a comma before every field but the first
        int to = (i + 1 < count ? starts[i + 1] : end) - start;
        if (!first) {
          buffer.write(',');
        }
        buffer.write(copy, from, to - from);
        first = false;
      }
    }
  }
}
