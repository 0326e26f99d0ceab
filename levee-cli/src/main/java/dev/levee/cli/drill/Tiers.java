package dev.levee.cli.drill;

/** How the drill names a tier read as 0..3 (-1: unknown), with one emoji per tier for chat summaries. */
final class Tiers {

  private static final String[] EMOJI = {"🟢", "🟡", "🟠", "🔴"};

  private Tiers() {}

  static String label(int tier) {
    return tier < 0 ? "?" : "T" + tier;
  }

  static String emoji(int tier) {
    return tier < 0 ? "⚪" : EMOJI[tier];
  }
}
