package dev.levee.emulator;

import java.util.ArrayList;
import java.util.List;

/** Word arithmetic on answer text: the emulator's token unit is one whitespace-separated word. */
final class Words {

  private Words() {}

  /** The number of whitespace-separated words in {@code text}. */
  static int count(String text) {
    int words = 0;
    boolean inWord = false;
    for (int i = 0; i < text.length(); i++) {
      boolean space = Character.isWhitespace(text.charAt(i));
      if (!space && !inWord) {
        words++;
      }
      inWord = !space;
    }
    return words;
  }

  /** The shortest prefix of {@code text} holding its first {@code words} words. */
  static String first(String text, int words) {
    int seen = 0;
    boolean inWord = false;
    for (int i = 0; i < text.length(); i++) {
      boolean space = Character.isWhitespace(text.charAt(i));
      if (!space && !inWord) {
        if (seen == words) {
          return text.substring(0, i).stripTrailing();
        }
        seen++;
      }
      inWord = !space;
    }
    return text;
  }

  /**
   * The suffix of {@code text} that starts at its {@code words}-th last word (the whole text when
   * it has fewer words), without leading whitespace.
   */
  static String last(String text, int words) {
    if (words <= 0) {
      return "";
    }
    int seen = 0;
    for (int i = text.length() - 1; i >= 0; i--) {
      boolean wordStart = !Character.isWhitespace(text.charAt(i))
          && (i == 0 || Character.isWhitespace(text.charAt(i - 1)));
      if (wordStart && ++seen == words) {
        return text.substring(i);
      }
    }
    return text.stripLeading();
  }

  /**
   * Splits text into pieces that each start at a word (with the whitespace before it), so that
   * joining them gives back {@code text}: {@code "A b c"} → {@code ["A", " b", " c"]}.
   */
  static List<String> pieces(String text) {
    List<String> pieces = new ArrayList<>();
    int start = 0;
    for (int i = 1; i < text.length(); i++) {
      if (Character.isWhitespace(text.charAt(i)) && !Character.isWhitespace(text.charAt(i - 1))) {
        pieces.add(text.substring(start, i));
        start = i;
      }
    }
    if (start < text.length()) {
      pieces.add(text.substring(start));
    }
    return pieces;
  }

  /**
   * Groups the word pieces of {@code text} into chunks of {@code min} to {@code max} words, chosen
   * by {@code random}: the deltas of one streamed block.
   */
  static List<String> chunks(String text, Prng random, int min, int max) {
    List<String> pieces = pieces(text);
    List<String> chunks = new ArrayList<>();
    int i = 0;
    while (i < pieces.size()) {
      int take = Math.min(random.between(min, max), pieces.size() - i);
      chunks.add(String.join("", pieces.subList(i, i + take)));
      i += take;
    }
    return chunks;
  }
}
