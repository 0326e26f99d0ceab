package dev.levee.anthropic.sse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The common content delta read without Jackson (issue 11: a parser per delta was ~10 % of a
 * stream's allocation): exactly {@code {"type":"content_block_delta","index":N,"delta":{"type":"T",
 * "K":"V"}}} with no whitespace, N a plain non-negative int of at most 9 digits, T letters and
 * underscores, K one of {@code text}, {@code thinking}, {@code partial_json} and {@code signature},
 * and V printable ASCII with the escapes {@code \" \\ \/ \b \f \n \r \t} — the shape the Messages
 * API sends for nearly every delta; and likewise exactly {@code {"type":"content_block_stop",
 * "index":N}} and {@code {"type":"message_stop"}}. Anything else (other keys or order, whitespace,
 * non-ASCII, {@code \}{@code u} escapes, malformed bytes) is not read here: {@link EventFields#read}
 * then reads it with Jackson, as before, so what is accepted and refused is Jackson's. The API's
 * delta types are shared strings, not decoded per delta. Stateless.
 */
final class DeltaScan {

  private static final byte[] HEAD = ascii("{\"type\":\"content_block_delta\",\"index\":");
  private static final byte[] DELTA = ascii(",\"delta\":{\"type\":\"");
  private static final byte[] STOP = ascii("{\"type\":\"content_block_stop\",\"index\":");
  private static final byte[] MESSAGE_STOP = ascii("{\"type\":\"message_stop\"}");
  private static final String[] TYPES = {"text_delta", "thinking_delta", "input_json_delta", "signature_delta"};
  private static final byte[][] TYPE_BYTES = {ascii(TYPES[0]), ascii(TYPES[1]), ascii(TYPES[2]), ascii(TYPES[3])};
  private static final byte[][] KEYS = {ascii("text"), ascii("thinking"), ascii("partial_json"), ascii("signature")};

  /** The fields of every {@code {"type":"message_stop"}}: none (read-only, shared). */
  private static final EventFields STOPPED = new EventFields();

  private DeltaScan() {}

  /** The fields of {@code data} when it has the common shape; null when Jackson must read it. */
  static EventFields scan(byte[] data) {
    int at = HEAD.length;
    if (data.length < at + 1 || !startsWith(data, 0, HEAD)) {
      return stop(data);
    }
    int indexStart = at;
    int index = 0;
    while (at < data.length && data[at] >= '0' && data[at] <= '9') {
      index = index * 10 + (data[at] - '0');
      at++;
    }
    int digits = at - indexStart;
    if (digits == 0 || digits > 9 || (digits > 1 && data[indexStart] == '0') || !startsWith(data, at, DELTA)) {
      return null;
    }
    int indexEnd = at;
    at += DELTA.length;
    int typeStart = at;
    at = name(data, at);
    if (at == typeStart || at + 3 >= data.length || data[at] != '"' || data[at + 1] != ',' || data[at + 2] != '"') {
      return null;
    }
    String type = type(data, typeStart, at);
    at += 3;
    int keyStart = at;
    at = name(data, at);
    if (at + 2 >= data.length || data[at] != '"' || data[at + 1] != ':' || data[at + 2] != '"') {
      return null;
    }
    int key = key(data, keyStart, at);
    if (key < 0) {
      return null;
    }
    at += 3;
    int valueStart = at;
    boolean escaped = false;
    while (at < data.length && data[at] != '"') {
      int b = data[at];
      if (b < 0x20) { // a control character, or a byte of a multi-byte character (negative)
        return null;
      }
      if (b == '\\') {
        if (at + 1 >= data.length || unescape(data[at + 1]) < 0) {
          return null;
        }
        escaped = true;
        at++;
      }
      at++;
    }
    if (at + 3 != data.length || data[at + 1] != '}' || data[at + 2] != '}') {
      return null; // unterminated, or more after the delta
    }
    String value = escaped ? unescaped(data, valueStart, at) : new String(data, valueStart, at - valueStart,
        StandardCharsets.US_ASCII);
    EventFields f = new EventFields();
    switch (key) {
      case 0 -> f.text = value;
      case 1 -> f.thinking = value;
      case 2 -> f.partialJson = value;
      default -> f.signature = value;
    }
    f.index = index;
    f.indexStart = indexStart;
    f.indexEnd = indexEnd;
    f.deltaType = type;
    return f;
  }

  /** The fields of the common block stop or message stop; null for any other data. */
  private static EventFields stop(byte[] data) {
    if (Arrays.equals(data, MESSAGE_STOP)) {
      return STOPPED;
    }
    if (data.length < STOP.length + 2 || !startsWith(data, 0, STOP) || data[data.length - 1] != '}') {
      return null;
    }
    int end = data.length - 1;
    int digits = end - STOP.length;
    if (digits > 9 || (digits > 1 && data[STOP.length] == '0')) {
      return null;
    }
    int index = 0;
    for (int at = STOP.length; at < end; at++) {
      if (data[at] < '0' || data[at] > '9') {
        return null;
      }
      index = index * 10 + (data[at] - '0');
    }
    EventFields f = new EventFields();
    f.index = index;
    f.indexStart = STOP.length;
    f.indexEnd = end;
    return f;
  }

  /** The delta type in {@code data} from {@code start} to {@code end}: the API's as a shared string. */
  private static String type(byte[] data, int start, int end) {
    for (int i = 0; i < TYPES.length; i++) {
      if (Arrays.equals(data, start, end, TYPE_BYTES[i], 0, TYPE_BYTES[i].length)) {
        return TYPES[i];
      }
    }
    return new String(data, start, end - start, StandardCharsets.US_ASCII);
  }

  /** Which of {@link #KEYS} is in {@code data} from {@code start} to {@code end}; -1 for none. */
  private static int key(byte[] data, int start, int end) {
    for (int i = 0; i < KEYS.length; i++) {
      if (Arrays.equals(data, start, end, KEYS[i], 0, KEYS[i].length)) {
        return i;
      }
    }
    return -1;
  }

  /** The character an escape's second byte stands for; -1 for one not read here ({@code \}{@code u}, or invalid). */
  private static int unescape(byte b) {
    return switch (b) {
      case '"', '\\', '/' -> b;
      case 'b' -> '\b';
      case 'f' -> '\f';
      case 'n' -> '\n';
      case 'r' -> '\r';
      case 't' -> '\t';
      default -> -1;
    };
  }

  /** ASCII from {@code start} to {@code end}, its escapes (all checked by {@link #scan}) replaced. */
  private static String unescaped(byte[] data, int start, int end) {
    char[] out = new char[end - start];
    int n = 0;
    for (int at = start; at < end; at++) {
      out[n++] = (char) (data[at] == '\\' ? unescape(data[++at]) : data[at]);
    }
    return new String(out, 0, n);
  }

  /** Where the run of letters and underscores from {@code at} ends. */
  private static int name(byte[] data, int at) {
    while (at < data.length && (data[at] >= 'a' && data[at] <= 'z' || data[at] == '_')) {
      at++;
    }
    return at;
  }

  private static boolean startsWith(byte[] data, int at, byte[] prefix) {
    return data.length - at >= prefix.length
        && Arrays.equals(data, at, at + prefix.length, prefix, 0, prefix.length);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
