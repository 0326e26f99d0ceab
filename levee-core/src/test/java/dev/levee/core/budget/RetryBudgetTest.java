package dev.levee.core.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The token bucket: starts full, a retry spends 1, a success earns {@code ratio}. */
class RetryBudgetTest {

  @Test
  void aNewBudgetStartsFull() {
    RetryBudget budget = new RetryBudget(10, 0.1);

    assertThat(budget.remaining()).isEqualTo(10.0);
    assertThat(budget.max()).isEqualTo(10.0);
    assertThat(budget.ratio()).isEqualTo(0.1);
  }

  @Test
  void eachRetrySpendsOneToken() {
    RetryBudget budget = new RetryBudget(3, 0);

    assertThat(budget.tryAcquire()).isTrue();
    assertThat(budget.tryAcquire()).isTrue();

    assertThat(budget.remaining()).isEqualTo(1.0);
  }

  @Test
  void anEmptyBudgetDeniesTheRetryAndSpendsNothing() {
    RetryBudget budget = new RetryBudget(2, 0);
    budget.tryAcquire();
    budget.tryAcquire();

    assertThat(budget.tryAcquire()).isFalse();
    assertThat(budget.remaining()).isEqualTo(0.0);
  }

  @Test
  void lessThanOneTokenIsNotEnoughForARetry() {
    RetryBudget budget = new RetryBudget(1, 0.5);
    budget.tryAcquire(); // 0
    budget.onSuccess(); // 0.5

    assertThat(budget.tryAcquire()).isFalse();
    assertThat(budget.remaining()).isEqualTo(0.5);
  }

  @Test
  void eachSuccessEarnsRatioTokens() {
    RetryBudget budget = new RetryBudget(2, 0.5);
    budget.tryAcquire();
    budget.tryAcquire(); // 0

    budget.onSuccess();
    budget.onSuccess(); // 1

    assertThat(budget.remaining()).isEqualTo(1.0);
    assertThat(budget.tryAcquire()).isTrue();
    assertThat(budget.tryAcquire()).isFalse();
  }

  @Test
  void successesNeverFillTheBucketBeyondItsMax() {
    RetryBudget budget = new RetryBudget(2, 0.75);
    budget.tryAcquire(); // 1

    budget.onSuccess(); // 1.75
    budget.onSuccess(); // 2.5, capped to 2

    assertThat(budget.remaining()).isEqualTo(2.0);
  }

  /** The spec's arithmetic, step by step: tokens = min(max, tokens + ratio) in doubles. */
  private static double earned(double start, double max, double ratio, int successes) {
    double tokens = start;
    for (int i = 0; i < successes; i++) {
      tokens = Math.min(max, tokens + ratio);
    }
    return tokens;
  }

  @Test
  void tokensAreSummedAsDoublesLikeThePublishedStudy() {
    RetryBudget budget = new RetryBudget(1, 0.1);
    budget.tryAcquire(); // 0

    for (int i = 0; i < 10; i++) {
      budget.onSuccess();
    }

    assertThat(budget.remaining()).isEqualTo(earned(0, 1, 0.1, 10)).isLessThan(1.0);
    assertThat(budget.tryAcquire()).isFalse();
    budget.onSuccess();
    assertThat(budget.remaining()).isEqualTo(1.0); // capped at max
    assertThat(budget.tryAcquire()).isTrue();
  }

  @Test
  void aSpentBudgetRecoversAtAboutRatioPerSuccessOverALongRun() {
    RetryBudget budget = new RetryBudget(10, 0.1);
    for (int i = 0; i < 10; i++) {
      budget.tryAcquire();
    }
    int granted = 0;
    double tokens = 0;
    int expected = 0;

    for (int success = 0; success < 1000; success++) {
      budget.onSuccess();
      tokens = Math.min(10, tokens + 0.1);
      if (budget.tryAcquire()) {
        granted++;
      }
      if (tokens >= 1) {
        tokens -= 1;
        expected++;
      }
    }

    assertThat(granted).isEqualTo(expected).isBetween(90, 100);
    assertThat(budget.remaining()).isEqualTo(tokens);
  }

  @Test
  void aRatioLargerThanTheBucketFillsItAtOnceAndNoFurther() {
    RetryBudget budget = new RetryBudget(3, 1e300);
    budget.tryAcquire();
    budget.tryAcquire();

    budget.onSuccess();

    assertThat(budget.remaining()).isEqualTo(3.0);
  }

  @Test
  void anUnlimitedBudgetNeverDenies() {
    RetryBudget budget = RetryBudget.unlimited();

    for (int i = 0; i < 1_000; i++) {
      assertThat(budget.tryAcquire()).isTrue();
    }
    assertThat(budget.remaining()).isEqualTo(Double.MAX_VALUE);
  }

  @Test
  void nonsensicalSettingsAreRefused() {
    assertThatThrownBy(() -> new RetryBudget(0, 0.1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryBudget(Double.NaN, 0.1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryBudget(10, -0.1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryBudget(10, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
  }
}
