package dev.levee.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 12): the demo's per-second table counted answers by the
 * second they finished and stopped at the drill's last second, so answers still in flight then
 * were in no row: its fallback column summed to 57 while the summary said 154. A last row, {@code
 * later}, now holds what the rows printed did not, and every count column sums to the totals.
 */
class TimelineSumsToSummaryRegressionTest {

  /** The count columns of one printed row, in order: sent, primary, fallback, failed, calls, ok, failed, calls. */
  static int[] columns(String row) {
    String[] parts = row.strip().split("\\|");
    String[] answers = parts[2].trim().split("\\s+");
    String[] state = parts[3].trim().split("\\s+");
    String[] baseline = parts[5].trim().split("\\s+");
    return new int[] {Integer.parseInt(parts[1].trim()), Integer.parseInt(answers[0]), Integer.parseInt(answers[1]),
        Integer.parseInt(answers[2]), Integer.parseInt(state[state.length - 1]), Integer.parseInt(baseline[0]),
        Integer.parseInt(baseline[1]), Integer.parseInt(baseline[2])};
  }

  static int[] sums(List<String> rows) {
    int[] sums = new int[8];
    for (String row : rows) {
      int[] c = columns(row);
      for (int i = 0; i < sums.length; i++) {
        sums[i] += c[i];
      }
    }
    return sums;
  }

  @Test
  void answersThatEndAfterTheLastSecondAreInTheLaterRowSoEveryColumnSumsToTheTotals() {
    Timeline timeline = new Timeline();
    List<String> rows = new ArrayList<>();
    rows.add(timeline.row(0, new Timeline.Counts(10, 8, 0, 0, 9, 6, 3, 10), "T0", "CLOSED", 50));
    rows.add(timeline.row(1, new Timeline.Counts(10, 0, 5, 1, 20, 2, 7, 10), "T1", "OPEN", 42.5));
    // still in flight as second 1 ended: 9 fallback answers, 1 failure, 4 upstream calls; 1 baseline failure
    Timeline.Counts totals = new Timeline.Counts(20, 8, 14, 2, 33, 8, 11, 20);
    String later = timeline.later(totals);
    rows.add(later);

    assertThat(later).startsWith("later |");
    assertThat(columns(later)).containsExactly(0, 0, 9, 1, 4, 0, 1, 0);
    assertThat(sums(rows)).containsExactly(20, 8, 14, 2, 33, 8, 11, 20);
    assertThat(later).hasSameSizeAs(rows.get(0)).as("the columns line up");
  }

  @Test
  void whenNothingEndedLateTheLaterRowIsZeros() {
    Timeline timeline = new Timeline();
    Timeline.Counts second = new Timeline.Counts(10, 10, 0, 0, 10, 10, 0, 10);
    timeline.row(0, second, "T0", "CLOSED", 50);

    assertThat(columns(timeline.later(second))).containsOnly(0);
  }
}
