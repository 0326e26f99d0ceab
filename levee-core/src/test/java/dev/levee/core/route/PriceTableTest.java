package dev.levee.core.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The default list prices, lookups by model name, and the task-fit matrix's lookups. */
class PriceTableTest {

  @Test
  void defaultsAreTheDocumentedListPricesPerThousandTokens() {
    PriceTable prices = PriceTable.defaults();

    assertThat(prices.priceOf("claude-opus-4-6").orElseThrow().inputPer1k()).isCloseTo(5.0 / 1000, within(1e-12));
    assertThat(prices.priceOf("claude-opus-4-6").orElseThrow().outputPer1k()).isCloseTo(25.0 / 1000, within(1e-12));
    assertThat(prices.priceOf("claude-sonnet-4-6").orElseThrow()).isEqualTo(ModelPrice.perMillion(3, 15));
    assertThat(prices.priceOf("claude-haiku-4-5").orElseThrow()).isEqualTo(ModelPrice.perMillion(1, 5));
    assertThat(prices.priceOf("claude-opus-5-5").orElseThrow()).isEqualTo(ModelPrice.perMillion(4, 20));
  }

  @Test
  void aSnapshotDateOrLatestIsPricedAsItsModelButNoOtherGuessIsMade() {
    PriceTable prices = PriceTable.defaults();

    assertThat(prices.priceOf("claude-sonnet-4-5-20250929")).isEqualTo(prices.priceOf("claude-sonnet-4-5"));
    assertThat(prices.priceOf("claude-opus-5-latest")).isEqualTo(prices.priceOf("claude-opus-5"));
    assertThat(prices.priceOf("claude-opus-4-9")).isEmpty();
    assertThat(prices.priceOf("emu-ok")).isEmpty();
  }

  @Test
  void configuredPricesReplaceTheDefaults() {
    PriceTable prices = PriceTable.defaults().with(Map.of("claude-opus-4-6", new ModelPrice(0.015, 0.075)));

    assertThat(prices.priceOf("claude-opus-4-6").orElseThrow().inputPer1k()).isEqualTo(0.015);
    assertThat(prices.priceOf("claude-sonnet-4-6")).isPresent();
    assertThatThrownBy(() -> new ModelPrice(-1, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theTaskFitMatrixMatchesFamiliesAsWordsOfTheModelName() {
    TaskFitMatrix matrix = TaskFitMatrix.defaults();

    assertThat(matrix.fit("claude-opus-4-6", TaskType.SIMPLE)).isEqualTo(0.5);
    assertThat(matrix.fit("claude-sonnet-4-6", TaskType.CODE)).isEqualTo(1.0);
    assertThat(matrix.fit("claude-3-5-haiku-20241022", TaskType.COMPLEX)).isEqualTo(0.4);
    assertThat(matrix.fit("opusculum", TaskType.CODE)).isEqualTo(TaskFitMatrix.UNKNOWN_FIT);
    assertThat(TaskFitMatrix.of(Map.of("claude-opus-4-6", Map.of(TaskType.CODE, 0.2))).fit("claude-opus-4-6", TaskType.CODE))
        .isEqualTo(0.2);
    assertThatThrownBy(() -> TaskFitMatrix.of(Map.of("x", Map.of(TaskType.CODE, 1.5))))
        .hasMessageContaining("within 0..1");
  }
}
