package dev.levee.emulator;

import java.util.List;

/**
 * The fixed words answers are made of: plain, lower-case, one token each, none a prefix-trap for
 * the others' punctuation. Changing this list changes every emulated answer.
 */
final class Vocabulary {

  static final List<String> WORDS = List.of(
      "river", "stone", "lamp", "harbor", "signal", "garden", "window", "ledger", "copper", "meadow",
      "engine", "lantern", "orbit", "canvas", "thread", "bridge", "marble", "valley", "compass", "ember",
      "forest", "glacier", "hollow", "island", "juniper", "kettle", "lattice", "mirror", "needle", "opal",
      "pepper", "quarry", "ribbon", "saddle", "timber", "umbra", "velvet", "willow", "yonder", "zephyr",
      "amber", "basin", "cedar", "delta", "echo", "falcon", "granite", "hazel", "iris", "jasper",
      "keel", "linen", "maple", "nickel", "oak", "pebble", "quill", "raven", "sable", "tulip",
      "the", "a", "of", "and", "to", "in", "with", "beyond", "under", "across",
      "quiet", "bright", "steady", "gentle", "distant", "silver", "golden", "narrow", "wide", "early",
      "late", "calm", "swift", "patient", "careful", "simple", "clear", "warm", "cool", "open",
      "carries", "holds", "turns", "waits", "follows", "gathers", "measures", "returns", "shapes", "keeps",
      "brings", "finds", "lifts", "guides", "answers", "remembers", "builds", "crosses", "reaches", "rests",
      "softly", "slowly", "often", "always", "again", "together", "nearby", "still", "briefly", "onward");

  private Vocabulary() {}

  static String pick(Prng random) {
    return WORDS.get(random.nextInt(WORDS.size()));
  }

  /**
   * {@code words} words as sentences of 4 to 11 words: the first word of a sentence is
   * capitalised, its last word ends in a full stop. Words are separated by one space.
   */
  static String sentences(Prng random, int words) {
    StringBuilder text = new StringBuilder();
    int left = 0;
    for (int i = 0; i < words; i++) {
      boolean start = left == 0;
      if (start) {
        left = Math.min(random.between(4, 11), words - i);
      }
      String word = pick(random);
      if (start) {
        word = Character.toUpperCase(word.charAt(0)) + word.substring(1);
      }
      if (i > 0) {
        text.append(' ');
      }
      text.append(word);
      left--;
      if (left == 0) {
        text.append('.');
      }
    }
    return text.toString();
  }

  /** {@code words} lower-case words separated by spaces, no punctuation. */
  static String phrase(Prng random, int words) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < words; i++) {
      if (i > 0) {
        text.append(' ');
      }
      text.append(pick(random));
    }
    return text.toString();
  }
}
