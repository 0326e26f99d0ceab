package dev.levee.cli.drill;

import dev.levee.cli.report.Report;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one drill measured, and its three assertions ({@link #checks()}).
 *
 * @param plan the drill that ran
 * @param samples one {@code /health} reading per drill second, from second 0
 * @param answers every request's answer
 * @param calls the upstream calls per second, from the emulator's log
 * @param endedMs the drill time of the last reading
 */
record DrillOutcome(DrillPlan plan, List<Sample> samples, List<Answer> answers, UpstreamCalls calls, long endedMs) {

  private int stormStart() {
    return (int) (plan.stormStartMs() / 1000);
  }

  private int stormEnd() {
    return (int) (plan.stormEndMs() / 1000);
  }

  /** Seconds from the storm's start to the first reading at T2 or below, or -1 when none. */
  int secondsToT2() {
    return samples.stream().filter(s -> s.second() >= stormStart() && s.tier() >= 2)
        .mapToInt(s -> s.second() - stormStart()).findFirst().orElse(-1);
  }

  /** The share of requests asked during the storm that the cache answered (NaN when none were asked). */
  double stormHitRate() {
    List<Answer> storm = answers.stream().filter(a -> a.second() >= stormStart() && a.second() < stormEnd()).toList();
    return storm.isEmpty() ? Double.NaN
        : storm.stream().filter(a -> a.source() == Answer.Source.CACHE).count() / (double) storm.size();
  }

  /**
   * Seconds from the storm's end to the reading from which the tier stayed at T0 to the drill's
   * end (0 when it never left T0 after the storm ended), or -1 when the last reading is not T0.
   */
  int secondsBackToT0() {
    int since = -1;
    for (Sample s : samples) {
      since = s.tier() == 0 ? (since < 0 ? s.second() : since) : -1;
    }
    return since < 0 ? -1 : Math.max(0, since - stormEnd());
  }

  /** The lowest tier read (0..3). */
  int lowestTier() {
    return samples.stream().mapToInt(Sample::tier).max().orElse(-1);
  }

  List<Report.Check> checks() {
    int toT2 = secondsToT2();
    double hitRate = stormHitRate();
    int back = secondsBackToT0();
    long bound = plan.tierBound().toSeconds();
    long recovery = plan.recoveryBound().toSeconds();
    return List.of(
        new Report.Check("tier at T2 or below after the storm starts", "within " + bound + " s",
            toT2 < 0 ? "never (lowest " + Tiers.label(lowestTier()) + ")" : toT2 + " s", toT2 >= 0 && toT2 <= bound),
        new Report.Check("storm requests answered from the cache", String.format(Locale.ROOT, "at least %.2f",
            plan.hitRateBound()), Double.isNaN(hitRate) ? "no requests" : String.format(Locale.ROOT, "%.2f", hitRate),
            hitRate >= plan.hitRateBound()),
        new Report.Check("tier back at T0 after the storm ends", "within " + recovery + " s",
            back < 0 ? "not back (" + Tiers.label(samples.getLast().tier()) + " at the end)" : back + " s",
            back >= 0 && back <= recovery));
  }

  boolean passed() {
    return checks().stream().allMatch(Report.Check::passed);
  }

  /** The tiers in the order they were read, repeats dropped, e.g. {@code [0, 1, 2, 1, 0]}. */
  List<Integer> tierPath() {
    List<Integer> path = new ArrayList<>();
    for (Sample s : samples) {
      if (s.tier() >= 0 && (path.isEmpty() || path.getLast() != s.tier())) {
        path.add(s.tier());
      }
    }
    return path;
  }

  /** Answers per source per second, indexed by {@link Answer.Source#ordinal()}. */
  double[][] answersBySource() {
    int seconds = samples.size();
    double[][] counts = new double[Answer.Source.values().length][seconds];
    for (Answer a : answers) {
      if (a.second() < seconds) {
        counts[a.source().ordinal()][a.second()]++;
      }
    }
    return counts;
  }

  long count(Answer.Source source) {
    return answers.stream().filter(a -> a.source() == source).count();
  }
}
