package dev.levee.anthropic.sse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The fast path of {@link EventFields#read}: the fields of an event in the shapes the Messages API
 * sends, scanned straight off the bytes — no parser, buffers or contexts to set up per event,
 * which cost more than the scan itself for a delta of a few words.
 *
 * <p>It answers only when sure: when the data is one JSON object within a strict subset of JSON
 * (keys of plain ASCII up to {@value #MAX_KEY} bytes, integers of at most 18 digits, strings of well-formed UTF-8, at most
 * {@value #MAX_DEPTH} levels, the wanted fields with the plain types the API gives them, no
 * {@code citation}); otherwise it answers null and Jackson reads the event. So it never accepts
 * what Jackson would refuse, and reads what it accepts as Jackson would (the last of duplicate
 * keys wins, escapes decoded alike). Not thread-safe: one scanner per scan.
 */
final class EventScanner {

  /** The deepest nesting scanned; deeper data goes to Jackson. */
  static final int MAX_DEPTH = 16;

  /** The longest key scanned, in bytes; longer ones go to Jackson. */
  static final int MAX_KEY = 256;

  private static final byte[] INDEX = ascii("index");
  private static final byte[] DELTA = ascii("delta");
  private static final byte[] TYPE = ascii("type");
  private static final byte[] TEXT = ascii("text");
  private static final byte[] THINKING = ascii("thinking");
  private static final byte[] PARTIAL_JSON = ascii("partial_json");
  private static final byte[] SIGNATURE = ascii("signature");
  private static final byte[] CITATION = ascii("citation");
  private static final String[] DELTA_TYPE_NAMES = {"text_delta", "thinking_delta", "input_json_delta",
      "signature_delta", "citations_delta"};
  private static final byte[][] DELTA_TYPES = Arrays.stream(DELTA_TYPE_NAMES).map(EventScanner::ascii)
      .toArray(byte[][]::new);
  private static final byte[] TRUE = ascii("true");
  private static final byte[] FALSE = ascii("false");
  private static final byte[] NULL = ascii("null");

  /** Thrown (without a stack) when the data leaves the subset; never escapes {@link #scan}. */
  private static final class Unsure extends RuntimeException {
    Unsure() {
      super(null, null, false, false);
    }
  }

  private static final Unsure UNSURE = new Unsure();

  private final byte[] b;
  private int i;
  private int keyStart; // the last key read, [keyStart, keyEnd)
  private int keyEnd;

  private EventScanner(byte[] data) {
    this.b = data;
  }

  /** The fields of {@code data}, or null when unsure (then Jackson decides). */
  static EventFields scan(byte[] data) {
    try {
      return new EventScanner(data).event();
    } catch (Unsure | ArrayIndexOutOfBoundsException e) { // running off the end is leaving the subset too
      return null;
    }
  }

  private EventFields event() {
    EventFields f = new EventFields();
    ws();
    expect('{');
    ws();
    if (b[i] == '}') {
      i++;
    } else {
      do {
        key();
        if (isKey(INDEX)) {
          index(f);
        } else if (isKey(DELTA)) {
          delta(f);
        } else {
          value(1);
        }
      } while (more('}'));
    }
    ws();
    if (i != b.length) {
      throw UNSURE;
    }
    return f;
  }

  private void index(EventFields f) {
    int start = i;
    int digits = number();
    if (digits > 9) {
      throw UNSURE; // perhaps beyond an int: Jackson's rules
    }
    int value = 0;
    for (int k = b[start] == '-' ? start + 1 : start; k < i; k++) {
      value = value * 10 + (b[k] - '0');
    }
    f.index = b[start] == '-' ? -value : value;
    f.indexStart = start;
    f.indexEnd = i;
  }

  private void delta(EventFields f) {
    f.clearDelta();
    expect('{');
    ws();
    if (b[i] == '}') {
      i++;
      return;
    }
    do {
      key();
      if (isKey(TYPE)) {
        f.deltaType = type();
      } else if (isKey(TEXT)) {
        f.text = string();
      } else if (isKey(THINKING)) {
        f.thinking = string();
      } else if (isKey(PARTIAL_JSON)) {
        f.partialJson = string();
      } else if (isKey(SIGNATURE)) {
        f.signature = string();
      } else if (isKey(CITATION)) {
        throw UNSURE; // kept as a tree: Jackson's work
      } else {
        value(2);
      }
    } while (more('}'));
  }

  /** After a member or element: true after a comma, false after {@code close}. */
  private boolean more(char close) {
    ws();
    byte c = b[i++];
    if (c == ',') {
      ws();
      return true;
    }
    if (c == close) {
      return false;
    }
    throw UNSURE;
  }

  /** A key of plain ASCII and its colon; leaves the key at [keyStart, keyEnd) and i at the value. */
  private void key() {
    expect('"');
    keyStart = i;
    byte c;
    while ((c = b[i]) != '"') {
      if (c < 0x20 || c == '\\') { // control, escape or (negative) non-ASCII
        throw UNSURE;
      }
      i++;
    }
    keyEnd = i++;
    if (keyEnd - keyStart > MAX_KEY) {
      throw UNSURE; // Jackson limits names; long ones are its to judge
    }
    ws();
    expect(':');
    ws();
  }

  private boolean isKey(byte[] name) {
    return Arrays.equals(b, keyStart, keyEnd, name, 0, name.length);
  }

  /** Skips any value, checking it. */
  private void value(int depth) {
    if (depth > MAX_DEPTH) {
      throw UNSURE;
    }
    switch (b[i]) {
      case '"' -> skipString();
      case '{' -> {
        i++;
        ws();
        if (b[i] == '}') {
          i++;
          return;
        }
        do {
          key();
          value(depth + 1);
        } while (more('}'));
      }
      case '[' -> {
        i++;
        ws();
        if (b[i] == ']') {
          i++;
          return;
        }
        do {
          value(depth + 1);
        } while (more(']'));
      }
      case 't' -> literal(TRUE);
      case 'f' -> literal(FALSE);
      case 'n' -> literal(NULL);
      default -> number();
    }
  }

  private void literal(byte[] word) {
    if (!Arrays.equals(b, i, i + word.length, word, 0, word.length)) {
      throw UNSURE;
    }
    i += word.length; // what follows is checked by the caller: a delimiter or unsure
  }

  /** An integer: {@code -?(0|[1-9][0-9]*)}; returns its digit count. Fractions and exponents are Jackson's. */
  private int number() {
    if (b[i] == '-') {
      i++;
    }
    int start = i;
    if (b[i] == '0') {
      i++;
    } else {
      while (i < b.length && b[i] >= '0' && b[i] <= '9') {
        i++;
      }
    }
    int digits = i - start;
    if (digits == 0 || digits > 18 || i < b.length && (b[i] == '.' || b[i] == 'e' || b[i] == 'E')) {
      throw UNSURE;
    }
    return digits;
  }

  private void skipString() {
    i++;
    while (true) {
      int c = b[i];
      if (c == '"') {
        i++;
        return;
      }
      if (c == '\\') {
        escape();
      } else if (c < 0) {
        i += utf8(null, 0);
      } else if (c < 0x20) {
        throw UNSURE;
      } else {
        i++;
      }
    }
  }

  /** A delta's type: the API's own as shared constants, any other decoded. */
  private String type() {
    int start = i + 1;
    for (int k = 0; k < DELTA_TYPES.length && b[i] == '"'; k++) {
      byte[] type = DELTA_TYPES[k];
      int end = start + type.length;
      if (end < b.length && b[end] == '"' && Arrays.equals(b, start, end, type, 0, type.length)) {
        i = end + 1;
        return DELTA_TYPE_NAMES[k];
      }
    }
    return string();
  }

  /** A string value, decoded. */
  private String string() {
    expect('"');
    int start = i;
    boolean ascii = true;
    while (true) {
      int c = b[i];
      if (c == '"') {
        String s = new String(b, start, i - start, ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
        i++;
        return s;
      }
      if (c == '\\') {
        i = start;
        return decoded();
      }
      if (c < 0) {
        ascii = false;
        i += utf8(null, 0);
      } else if (c < 0x20) {
        throw UNSURE;
      } else {
        i++;
      }
    }
  }

  /** A string with escapes, from its first byte: decoded char by char. */
  private String decoded() {
    char[] out = new char[b.length - i]; // never more chars than bytes
    int n = 0;
    while (true) {
      int c = b[i];
      if (c == '"') {
        i++;
        return new String(out, 0, n);
      }
      if (c == '\\') {
        out[n++] = escape();
      } else if (c < 0) {
        int length = utf8(out, n);
        i += length;
        n += length == 4 ? 2 : 1;
      } else if (c < 0x20) {
        throw UNSURE;
      } else {
        out[n++] = (char) c;
        i++;
      }
    }
  }

  /** The escape at i (a backslash), checked and decoded; i moves past it. */
  private char escape() {
    byte c = b[i + 1];
    i += 2;
    return switch (c) {
      case '"' -> '"';
      case '\\' -> '\\';
      case '/' -> '/';
      case 'b' -> '\b';
      case 'f' -> '\f';
      case 'n' -> '\n';
      case 'r' -> '\r';
      case 't' -> '\t';
      case 'u' -> {
        int v = 0;
        for (int k = 0; k < 4; k++) {
          int h = Character.digit(b[i++], 16);
          if (h < 0) {
            throw UNSURE;
          }
          v = v << 4 | h;
        }
        yield (char) v;
      }
      default -> throw UNSURE;
    };
  }

  /**
   * The well-formed UTF-8 sequence at i (Unicode Table 3-7: no overlongs, no surrogates, nothing
   * beyond U+10FFFF): its length in bytes; its chars written to {@code out} at {@code at} when out
   * is not null. i does not move.
   */
  private int utf8(char[] out, int at) {
    int c = b[i] & 0xff;
    int length;
    int low = 0x80;
    int high = 0xbf; // the range of the second byte
    int cp;
    if (c >= 0xc2 && c <= 0xdf) {
      length = 2;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      length = 3;
      cp = c & 0x0f;
      low = c == 0xe0 ? 0xa0 : 0x80;
      high = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
      length = 4;
      cp = c & 0x07;
      low = c == 0xf0 ? 0x90 : 0x80;
      high = c == 0xf4 ? 0x8f : 0xbf;
    } else {
      throw UNSURE;
    }
    for (int k = 1; k < length; k++) {
      int d = b[i + k] & 0xff;
      if (d < (k == 1 ? low : 0x80) || d > (k == 1 ? high : 0xbf)) {
        throw UNSURE;
      }
      cp = cp << 6 | d & 0x3f;
    }
    if (out != null) {
      if (length == 4) {
        out[at] = Character.highSurrogate(cp);
        out[at + 1] = Character.lowSurrogate(cp);
      } else {
        out[at] = (char) cp;
      }
    }
    return length;
  }

  private void expect(char c) {
    if (b[i++] != c) {
      throw UNSURE;
    }
  }

  /** JSON's whitespace: space, tab, LF, CR. */
  private void ws() {
    while (i < b.length) {
      byte c = b[i];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      i++;
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
