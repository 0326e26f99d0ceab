package dev.levee.core.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.levee.core.chain.Target;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The score formula term by term, one case a row; the expected column is the sum written out. */
class ScoreCasesTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      # case                        | success | p95 ms | budget ms | tokens | $/1k in | prefer   | model             | task     | expected
      healthy sonnet, code           | 1.0     | 1200   | 5000      | 2000   | 0.003   | BALANCED | claude-sonnet-4-6 | CODE     | 30 + 19 + 9.375 + 30
      prefers cost: cost weighs 35   | 1.0     | 1200   | 5000      | 2000   | 0.003   | COST     | claude-sonnet-4-6 | CODE     | 30 + 19 + 21.875 + 30
      quality weighs cost as balanced| 1.0     | 1200   | 5000      | 2000   | 0.003   | QUALITY  | claude-sonnet-4-6 | CODE     | 30 + 19 + 9.375 + 30
      p95 over budget: no latency    | 1.0     | 6000   | 5000      | 2000   | 0.003   | BALANCED | claude-sonnet-4-6 | CODE     | 30 + 0 + 9.375 + 30
      half the calls fail            | 0.5     | 1200   | 5000      | 2000   | 0.003   | BALANCED | claude-sonnet-4-6 | CODE     | 15 + 19 + 9.375 + 30
      no input tokens: full cost     | 1.0     | 1200   | 5000      | 0      | 0.003   | BALANCED | claude-sonnet-4-6 | CODE     | 30 + 19 + 15 + 30
      haiku, simple task             | 1.0     | 600    | 5000      | 2000   | 0.001   | BALANCED | claude-haiku-4-5  | SIMPLE   | 30 + 22 + 12.5 + 30
      haiku, creative task           | 1.0     | 600    | 5000      | 2000   | 0.001   | BALANCED | claude-haiku-4-5  | CREATIVE | 30 + 22 + 12.5 + 9
      opus, complex, tight budget    | 1.0     | 3000   | 4000      | 2000   | 0.005   | BALANCED | claude-opus-4-6   | COMPLEX  | 30 + 6.25 + 7.5 + 30
      unknown model, unpriced        | 1.0     | 1000   | 5000      | 2000   |         | BALANCED | emu-ok            | CODE     | 30 + 20 + 7.5 + 15
      unknown model, prefers cost    | 1.0     | 1000   | 5000      | 2000   |         | COST     | emu-ok            | CODE     | 30 + 20 + 17.5 + 15
      dated sonnet id is sonnet      | 0.9     | 2500   | 5000      | 10000  | 0.003   | BALANCED | claude-sonnet-4-6-20260217 | SIMPLE | 27 + 12.5 + 3.75 + 24
      """)
  void scores(String name, double success, long p95Ms, long budgetMs, long tokens, Double pricePer1k,
      Preference preference, String model, TaskType task, String expected) {
    Score score = Score.of(new Target("anthropic", model),
        new TargetReading(success, Duration.ofMillis(p95Ms), true, 1),
        pricePer1k == null ? null : new ModelPrice(pricePer1k, pricePer1k * 5),
        TaskFitMatrix.defaults().fit(model, task),
        new RouteRequest(task, tokens, Duration.ofMillis(budgetMs), preference));

    String[] terms = expected.split("\\+");
    assertThat(score.reliability()).as("reliability").isCloseTo(Double.parseDouble(terms[0].trim()), within(1e-9));
    assertThat(score.latency()).as("latency").isCloseTo(Double.parseDouble(terms[1].trim()), within(1e-9));
    assertThat(score.cost()).as("cost").isCloseTo(Double.parseDouble(terms[2].trim()), within(1e-9));
    assertThat(score.taskFit()).as("task fit").isCloseTo(Double.parseDouble(terms[3].trim()), within(1e-9));
    assertThat(score.total()).isCloseTo(score.reliability() + score.latency() + score.cost() + score.taskFit(),
        within(1e-12));
  }
}
