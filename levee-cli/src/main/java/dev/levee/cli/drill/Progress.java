package dev.levee.cli.drill;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * The drill's live progress line: rewritten in place each drill second on a terminal, printed
 * every 15 drill seconds and at each change of tier otherwise (a CI log).
 */
final class Progress {

  private final PrintWriter out;
  private final boolean live;
  private int lastTier = Integer.MIN_VALUE;
  private int width;

  Progress(PrintWriter out, boolean live) {
    this.out = out;
    this.live = live;
  }

  void second(DrillPlan plan, Sample sample, List<Answer> answers) {
    int total;
    int failed = 0;
    int storm = 0;
    int stormHits = 0;
    synchronized (answers) {
      total = answers.size();
      for (Answer a : answers) {
        failed += a.source() == Answer.Source.FAILED ? 1 : 0;
        if (a.second() * 1000L >= plan.stormStartMs() && a.second() * 1000L < plan.stormEndMs()) {
          storm++;
          stormHits += a.source() == Answer.Source.CACHE ? 1 : 0;
        }
      }
    }
    long ms = sample.second() * 1000L;
    String phase = ms < plan.stormStartMs() ? "calm"
        : ms < plan.stormEndMs() ? "storm " + (ms - plan.stormStartMs()) / 1000 + "/" + plan.storm().toSeconds() + " s"
        : "recovery +" + (ms - plan.stormEndMs()) / 1000 + " s";
    String line = String.format(Locale.ROOT, "%5d s  %-18s tier %s %s  answers %d (failed %d, storm from cache %s)  budget %s",
        sample.second(), phase, Tiers.label(sample.tier()), Tiers.emoji(sample.tier()), total, failed,
        storm == 0 ? "-" : String.format(Locale.ROOT, "%.0f%%", 100.0 * stormHits / storm),
        Double.isNaN(sample.budget()) ? "?" : String.format(Locale.ROOT, "%.1f", sample.budget()));
    if (live) {
      out.print("\r" + line + " ".repeat(Math.max(0, width - line.length())));
      width = line.length();
    } else if (sample.second() % 15 == 0 || sample.tier() != lastTier) {
      out.println(line);
    }
    lastTier = sample.tier();
    out.flush();
  }

  void done() {
    if (live) {
      out.println();
    }
  }
}
