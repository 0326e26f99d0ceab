package dev.levee.anthropic.error;

/**
 * A client's value as an error message may quote it: a header, a method, a path, an id, a JSON
 * field name or number. A client chooses how long these are (a 10,000-digit {@code max_tokens}, a
 * 5,000-character method, a 50,000-character field name), and an error that quoted them in full
 * made every refusal as large as the input and filled logs with it. Thread-safe (stateless).
 */
public final class ClientText {

  /** The most of a client's value an error message repeats, in characters. */
  public static final int SHOWN = 100;

  private ClientText() {}

  /**
   * {@code value} as sent, cut to at most {@value #SHOWN} characters followed by {@code ...} when
   * longer (never between the two halves of a surrogate pair), control characters as spaces.
   */
  public static String shown(String value) {
    String cut = value;
    if (value.length() > SHOWN) {
      int end = Character.isHighSurrogate(value.charAt(SHOWN - 1)) ? SHOWN - 1 : SHOWN;
      cut = value.substring(0, end) + "...";
    }
    return cut.replaceAll("\\p{Cntrl}", " ");
  }
}
