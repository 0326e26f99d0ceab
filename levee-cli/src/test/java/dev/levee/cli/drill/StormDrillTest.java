package dev.levee.cli.drill;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.io.PrintWriter;
import java.io.Writer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 4's drill on every build, as {@code levee drill} runs it: the embedded pair ({@link
 * Pair#embedded}: gateway, emulator and tiers on one virtual clock; requests are real HTTP), the
 * published schedule ({@link DrillPlan#published}: 60 s calm, a 180 s storm of 429s, recovery; 20
 * questions at 2 requests/s), its three assertions ({@link DrillOutcome#checks}). The storm hits
 * 30% of the calls (issue 4) and 100% (issue 10). One source of truth: what the drill drills is
 * what this test holds; it adds only that every request is answered and the bound issue 10 derived.
 */
class StormDrillTest {

  @ParameterizedTest(name = "a storm of {0} 429s")
  @ValueSource(doubles = {0.3, 1.0})
  void aStormStepsDownServesFromCacheAndStepsBackUp(double share) throws Exception {
    DrillPlan plan = DrillPlan.published(Duration.ofSeconds(180), share, 2, 20, Pair.EMBEDDED_ALIAS, "default");
    DrillOutcome outcome;
    try (Pair pair = Pair.embedded(100_000)) { // as fast as the machine can: virtual time
      outcome = new StormDrill(plan, pair, new Progress(new PrintWriter(Writer.nullWriter()), false)).run();
    }
    System.out.println("drill (" + share + " 429s) tiers: " + tiers(outcome) + "\n" + DrillReport.summary(outcome));

    assertThat(outcome.checks()).allSatisfy(check ->
        assertThat(check.passed()).as(check.name() + ": " + check.measured() + " (" + check.bound() + ")").isTrue());
    assertThat(outcome.secondsToT2()).as("stepped down to T2 or below: " + tiers(outcome)).isGreaterThanOrEqualTo(0);
    assertThat(outcome.count(Answer.Source.FAILED)).as("every request was answered").isZero();
    assertThat(outcome.samples()).as("the retry budget is read from every /health")
        .allSatisfy(sample -> assertThat(sample.budget()).isBetween(0.0, 100.0));
    // derived, not tuned: the short window decides the way up (issue 10), so once the storm ends the
    // SLI window (60 s) clears, then two steps of healthy-for (30 s) each, read every 5 s: <= 130 s.
    // Waiting for the 5 min burn to fall below 2 (the rule before) took 225-255 s here.
    assertThat(outcome.secondsBackToT0()).as("the short window decides the way up: " + tiers(outcome))
        .isBetween(0, 130);
  }

  /** The tier at each change, e.g. {@code 0s:T0 70s:T1 75s:T2 ...}. */
  private static String tiers(DrillOutcome outcome) {
    StringBuilder s = new StringBuilder();
    int last = Integer.MIN_VALUE;
    for (Sample sample : outcome.samples()) {
      if (sample.tier() != last) {
        s.append(sample.second()).append("s:T").append(sample.tier()).append(' ');
        last = sample.tier();
      }
    }
    return s.toString().strip();
  }

  @Test
  void theBudgetChartedIsTheFewestTokensOfAConfiguredTargetsOwnBucket() {
    JsonNode health = Json.tryParse("""
        {"targets": {
          "emu/claude-main": {"retry_budget": {"bucket": "own", "tokens": 42.5, "denied_here": 0}},
          "emu/claude-other": {"retry_budget": {"bucket": "own", "tokens": 80.0, "denied_here": 0}},
          "emu/named-by-a-client": {"retry_budget": {"bucket": "overflow"}}},
         "retry_budget": {"overflow": {"tokens": 0.0, "denied_here": 9}}}
        """);

    assertThat(StormDrill.budgetLeft(health)).isEqualTo(42.5);
    assertThat(StormDrill.budgetLeft(Json.tryParse("{\"targets\":{}}"))).isNaN();
  }
}
