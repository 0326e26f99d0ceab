package dev.levee.anthropic;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.Objects;

/**
 * Finds the first ill-formed sequence in bytes that should be UTF-8, by the well-formed byte
 * sequences of the Unicode Standard (chapter 3, table 3-7; RFC 3629 section 4): no overlong forms
 * ({@code C0 80}, {@code E0 80 80}), no encoded surrogates ({@code ED A0 80} … {@code ED BF BF}),
 * nothing past U+10FFFF, no stray continuation byte, no sequence cut short by another byte or by
 * the end. Jackson does not check all of this: a string it skips (most of a Messages body) is not
 * decoded, and where it decodes, an overlong form or a surrogate passes, so a body Levee forwards
 * could be read otherwise by the upstream. Every request body Levee or its emulator reads as JSON is
 * scanned first ({@link #refusal}).
 *
 * <p>On the hot path: allocation-free, eight ASCII bytes a step. Thread-safe (stateless).
 */
public final class Utf8 {

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long HIGH_BITS = 0x8080808080808080L;

  private Utf8() {}

  /**
   * The offset of the first byte of the first ill-formed sequence in {@code bytes[off, off + len)},
   * or -1 when all of it is well-formed UTF-8 (an empty range is). A lead byte that cannot begin a
   * sequence ({@code 80}–{@code C1}, {@code F5}–{@code FF}) is its own offset; a sequence whose
   * later byte is wrong, or that the range's end cuts, is reported at its lead byte.
   *
   * @param bytes the bytes to scan
   * @param off where the range starts, 0-based
   * @param len how many bytes it holds
   * @return the offset in {@code bytes} (not in the range), or -1
   * @throws IndexOutOfBoundsException when the range is not inside {@code bytes}
   */
  public static int firstMalformed(byte[] bytes, int off, int len) {
    Objects.checkFromIndexSize(off, len, bytes.length);
    int end = off + len;
    int i = off;
    while (i < end) {
      while (i + 8 <= end && ((long) LONGS.get(bytes, i) & HIGH_BITS) == 0) {
        i += 8; // eight ASCII bytes
      }
      while (i < end) { // byte by byte up to the next multi-byte sequence, then back to words
        int b = bytes[i];
        if (b >= 0) {
          i++;
          continue;
        }
        int n = sequenceEnd(bytes, i, end);
        if (n < 0) {
          return i;
        }
        i = n;
        if (i < end && bytes[i] >= 0) {
          break; // ASCII again: perhaps a run of it
        }
      }
    }
    return -1;
  }

  /**
   * Where the multi-byte sequence led by {@code bytes[i]} ends (exclusive), or -1 when it is
   * ill-formed or cut by {@code end}.
   */
  private static int sequenceEnd(byte[] bytes, int i, int end) {
    int lead = bytes[i] & 0xFF;
    if (lead < 0xC2) {
      return -1; // a continuation byte, or C0/C1 (only ever overlong)
    }
    if (lead < 0xE0) {
      return i + 1 < end && continuation(bytes[i + 1]) ? i + 2 : -1;
    }
    if (lead < 0xF0) {
      if (i + 2 >= end) {
        return -1;
      }
      int second = bytes[i + 1] & 0xFF;
      int low = lead == 0xE0 ? 0xA0 : 0x80; // below: overlong
      int high = lead == 0xED ? 0x9F : 0xBF; // above: a surrogate, U+D800..U+DFFF
      return second >= low && second <= high && continuation(bytes[i + 2]) ? i + 3 : -1;
    }
    if (lead < 0xF5) {
      if (i + 3 >= end) {
        return -1;
      }
      int second = bytes[i + 1] & 0xFF;
      int low = lead == 0xF0 ? 0x90 : 0x80; // below: overlong
      int high = lead == 0xF4 ? 0x8F : 0xBF; // above: past U+10FFFF
      return second >= low && second <= high && continuation(bytes[i + 2]) && continuation(bytes[i + 3]) ? i + 4 : -1;
    }
    return -1; // F5..FF: past U+10FFFF, or never UTF-8
  }

  private static boolean continuation(byte b) {
    return (b & 0xC0) == 0x80;
  }

  /**
   * The words of a 400 for a request body whose first ill-formed sequence begins at {@code
   * offset} ({@link #firstMalformed}), e.g. {@code request body is not valid UTF-8: the bytes at
   * offset 17 (0xED 0xA0 0x80) are not a UTF-8 character; JSON must be sent as UTF-8 (RFC 8259
   * section 8.1)}. Names at most the four bytes from {@code offset}, as hex.
   *
   * @param body the body
   * @param offset the offset {@link #firstMalformed} gave, 0-based
   */
  public static String refusal(byte[] body, int offset) {
    int shown = Math.min(body.length - offset, Math.max(1, Math.min(4, expectedLength(body[offset]))));
    StringBuilder hex = new StringBuilder();
    for (int k = 0; k < shown; k++) {
      hex.append(k == 0 ? "" : " ").append(String.format(Locale.ROOT, "0x%02X", body[offset + k] & 0xFF));
    }
    return "request body is not valid UTF-8: the " + (shown == 1 ? "byte" : "bytes") + " at offset " + offset
        + " (" + hex + ") " + (shown == 1 ? "is" : "are") + " not a UTF-8 character"
        + (offset + shown == body.length && shown < expectedLength(body[offset]) ? " (the body ends inside it)" : "")
        + "; JSON must be sent as UTF-8 (RFC 8259 section 8.1)";
  }

  /** How many bytes a sequence led by {@code lead} takes, by its high bits (1 when it cannot lead one). */
  private static int expectedLength(byte lead) {
    int b = lead & 0xFF;
    return b >= 0xF0 && b < 0xF8 ? 4 : b >= 0xE0 && b < 0xF0 ? 3 : b >= 0xC0 && b < 0xE0 ? 2 : 1;
  }
}
