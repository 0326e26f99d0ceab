package dev.levee.sim.study;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.sim.RunStats;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The published retry-budget table, computed by running the simulation with levee-core's policies. */
class RetryBudgetStudyTest {

  /** One published row: calls, retries, denied, amplification and loss as printed. */
  private record Published(String policy, long calls, long retries, long denied, String amp, String loss) {}

  private static final List<Published> PUBLISHED = List.of(
      new Published("immediate retry", 2231, 731, 0, "1.49", "7.4%"),
      new Published("backoff + full jitter", 2235, 735, 0, "1.49", "5.2%"),
      new Published("budget 200 / ratio 0.1", 1731, 231, 240, "1.15", "18.7%"),
      new Published("budget 400 / ratio 0.2", 1974, 474, 154, "1.32", "14.9%"),
      new Published("budget 500 / ratio 0.25", 2115, 615, 66, "1.41", "9.3%"),
      new Published("budget 600 / ratio 0.3", 2235, 735, 0, "1.49", "5.2%"));

  @Test
  void reproducesThePublishedTableToTheDigit() {
    RetryBudgetStudy study = RetryBudgetStudy.published();
    List<RetryBudgetStudy.Row> rows = study.run();

    assertThat(study.requests()).isEqualTo(1500);
    assertThat(rows).hasSameSizeAs(PUBLISHED);
    for (int i = 0; i < rows.size(); i++) {
      Published expected = PUBLISHED.get(i);
      RunStats s = rows.get(i).stats();
      assertThat(rows.get(i).policy()).isEqualTo(expected.policy());
      assertThat(s.calls()).as("%s calls", expected.policy()).isEqualTo(expected.calls());
      assertThat(s.retries()).as("%s retries", expected.policy()).isEqualTo(expected.retries());
      assertThat(s.denied()).as("%s denied", expected.policy()).isEqualTo(expected.denied());
      assertThat(String.format(Locale.ROOT, "%.2f", s.amplification())).as("%s amp", expected.policy())
          .isEqualTo(expected.amp());
      assertThat(String.format(Locale.ROOT, "%.1f%%", 100 * s.loss())).as("%s loss", expected.policy())
          .isEqualTo(expected.loss());
    }
  }

  @Test
  void theStudysOwnInvariantsHold() {
    for (RetryBudgetStudy.Row row : RetryBudgetStudy.published().run()) {
      RunStats s = row.stats();
      assertThat(s.calls()).isEqualTo(s.requests() + s.retries());
      assertThat(s.successes() + s.lost()).isEqualTo(s.requests());
    }
  }

  @Test
  void anotherSeedGivesAnotherTable() {
    RetryBudgetStudy published = RetryBudgetStudy.published();
    RetryBudgetStudy other = new RetryBudgetStudy(1, published.rate(), published.horizon(), published.maxAttempts(),
        published.outageEnd(), published.degradedEnd(), published.degradedFailRate(), published.immediateDelay(),
        published.backoffBase(), published.backoffCap(), published.budgets());

    assertThat(other.run().get(1).stats().calls()).isNotEqualTo(published.run().get(1).stats().calls());
  }
}
