package dev.levee.anthropic.stream;

/**
 * How much of a recovery's text repeats what the client already has.
 *
 * <p>A model asked to continue a partial answer often repeats its last few words (no-prefill
 * recovery); after a prefill whose trailing whitespace had to be stripped (the API refuses
 * a final assistant turn ending in whitespace), the recovery restarts with that whitespace.
 * Either way the repeated part must not reach the client twice. Only whole-word overlaps are
 * trimmed, so a recovery that legitimately starts with the letters the text ended with
 * ("...in the" + "theory") is left alone.
 */
public final class Overlap {

  /** The longest overlap looked for, in characters. */
  public static final int MAX = 200;

  private Overlap() {}

  /**
   * The number of leading characters of {@code recovered} that repeat the end of {@code sent}.
   *
   * @param wordsAllowed whether whole repeated words are trimmed (no-prefill recoveries);
   *     when false only repeated leading whitespace is (prefill recoveries)
   */
  public static int of(CharSequence sent, String recovered, boolean wordsAllowed) {
    int longest = Math.min(Math.min(MAX, sent.length()), recovered.length());
    for (int k = longest; k > 0; k--) {
      if (!endsWith(sent, recovered, k)) {
        continue;
      }
      if (isBlank(recovered, k)) {
        return k;
      }
      if (wordsAllowed && startsAtWordBoundary(sent, k) && endsAtWordBoundary(recovered, k)) {
        return k;
      }
    }
    return 0;
  }

  private static boolean endsWith(CharSequence sent, String recovered, int k) {
    int offset = sent.length() - k;
    for (int i = 0; i < k; i++) {
      if (sent.charAt(offset + i) != recovered.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isBlank(String s, int k) {
    for (int i = 0; i < k; i++) {
      if (!Character.isWhitespace(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** The overlap begins at the start of {@code sent} or right after whitespace, or itself begins with it. */
  private static boolean startsAtWordBoundary(CharSequence sent, int k) {
    int start = sent.length() - k;
    return start == 0 || Character.isWhitespace(sent.charAt(start - 1)) || Character.isWhitespace(sent.charAt(start));
  }

  /** The overlap ends where the recovered's next word begins (or at its end). */
  private static boolean endsAtWordBoundary(String recovered, int k) {
    return k == recovered.length()
        || Character.isWhitespace(recovered.charAt(k))
        || Character.isWhitespace(recovered.charAt(k - 1))
        || !Character.isLetterOrDigit(recovered.charAt(k));
  }
}
