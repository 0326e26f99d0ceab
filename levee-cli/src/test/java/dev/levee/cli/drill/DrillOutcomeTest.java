package dev.levee.cli.drill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.cli.report.Report;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The drill's three assertions, read from given readings (storm from 60 s to 240 s). */
class DrillOutcomeTest {

  private static final DrillPlan PLAN = DrillPlan.published(Duration.ofSeconds(180), 1.0, 2, 20, "chat", "default");

  /** Tiers per second: {@code segments} as (until second, tier) pairs. */
  private static List<Sample> tiers(int... segments) {
    List<Sample> samples = new ArrayList<>();
    int second = 0;
    for (int i = 0; i < segments.length; i += 2) {
      for (; second < segments[i]; second++) {
        samples.add(new Sample(second, segments[i + 1], 100));
      }
    }
    return samples;
  }

  private static DrillOutcome outcome(List<Sample> samples, List<Answer> answers) {
    int n = samples.size();
    return new DrillOutcome(PLAN, samples, answers, new UpstreamCalls(new int[n], new int[n], new int[n]), (n - 1) * 1000L);
  }

  private static List<Answer> stormAnswers(int fromCache, int fromUpstream) {
    List<Answer> answers = new ArrayList<>();
    answers.add(new Answer(10, 200, "T0", null)); // before the storm: not counted
    for (int i = 0; i < fromCache; i++) {
      answers.add(new Answer(100, 200, "T2", "hit"));
    }
    for (int i = 0; i < fromUpstream; i++) {
      answers.add(new Answer(100, 200, "T2", "miss"));
    }
    return answers;
  }

  @Test
  void aDrillThatStepsDownServesFromCacheAndComesBackPasses() {
    DrillOutcome outcome = outcome(tiers(70, 0, 75, 1, 250, 2, 300, 1, 400, 0), stormAnswers(8, 2));

    assertThat(outcome.checks()).extracting(Report.Check::measured).containsExactly("15 s", "0.80", "60 s");
    assertThat(outcome.passed()).isTrue();
    assertThat(outcome.tierPath()).containsExactly(0, 1, 2, 1, 0);
  }

  @Test
  void eachBoundFailsOnItsOwn() {
    DrillOutcome slow = outcome(tiers(121, 0, 250, 2, 400, 0), stormAnswers(9, 1));
    DrillOutcome neverDown = outcome(tiers(60, 0, 240, 1, 400, 0), stormAnswers(9, 1));
    DrillOutcome cold = outcome(tiers(70, 0, 250, 2, 400, 0), stormAnswers(7, 3));
    DrillOutcome stuck = outcome(tiers(70, 0, 570, 2), stormAnswers(9, 1));
    DrillOutcome late = outcome(tiers(70, 0, 541, 2, 600, 0), stormAnswers(9, 1));
    DrillOutcome flapped = outcome(tiers(70, 0, 250, 2, 260, 0, 265, 1, 400, 0), stormAnswers(9, 1));

    assertThat(slow.checks().get(0)).extracting(Report.Check::measured, Report.Check::passed).containsExactly("61 s", false);
    assertThat(neverDown.checks().get(0).measured()).isEqualTo("never (lowest T1)");
    assertThat(cold.checks().get(1)).extracting(Report.Check::measured, Report.Check::passed).containsExactly("0.70", false);
    assertThat(stuck.checks().get(2)).extracting(Report.Check::measured, Report.Check::passed)
        .containsExactly("not back (T2 at the end)", false);
    assertThat(late.checks().get(2)).extracting(Report.Check::measured, Report.Check::passed).containsExactly("301 s", false);
    assertThat(flapped.checks().get(2).measured()).as("back means back for good").isEqualTo("25 s");
    for (DrillOutcome failed : List.of(slow, neverDown, cold, stuck, late)) {
      assertThat(failed.checks()).filteredOn(c -> !c.passed()).hasSize(1);
      assertThat(DrillReport.summary(failed)).startsWith("❌ Levee drill FAILED");
    }
  }
}
