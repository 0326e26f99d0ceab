package dev.levee.core.chain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.budget.RetryBudget;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The table of retry budgets: own buckets for configured targets, one overflow bucket, a summary. */
class RetryBudgetsTest {

  static final Target A = Target.parse("anthropic/claude-a");
  static final Target B = Target.parse("bedrock/claude-b");
  static final Target OTHER = Target.parse("anthropic/made-up-by-a-client");

  final RetryBudgets budgets = RetryBudgets.local(List.of(A, B), 5, 0.5);

  @Test
  void configuredTargetsHaveTheirOwnBucketsInTheGivenOrder() {
    assertThat(budgets.configured().keySet()).containsExactly(A, B);
    assertThat(budgets.of(A)).isNotSameAs(budgets.of(B)).isNotSameAs(budgets.overflow());
    assertThat(budgets.hasOwn(A)).isTrue();
    assertThat(budgets.hasOwn(OTHER)).isFalse();
    assertThat(budgets.of(OTHER)).isSameAs(budgets.overflow());
    assertThat(budgets.of(A).max()).isEqualTo(5.0);
    assertThat(((RetryBudget) budgets.of(A)).ratio()).isEqualTo(0.5);
  }

  @Test
  void theLowestBucketNamesItsTarget() {
    budgets.of(B).tryAcquire();
    budgets.of(B).tryAcquire();
    budgets.of(A).tryAcquire();

    assertThat(budgets.lowest()).isEqualTo(new RetryBudgets.Lowest(B, 3.0));
  }

  @Test
  void theOverflowBucketIsLowestWhenItHasFewestTokens() {
    budgets.of(OTHER).tryAcquire();

    assertThat(budgets.lowest()).isEqualTo(new RetryBudgets.Lowest(null, 4.0));
  }

  @Test
  void onATieTheFirstConfiguredBucketIsNamed() {
    assertThat(budgets.lowest()).isEqualTo(new RetryBudgets.Lowest(A, 5.0));
  }

  @Test
  void deniedCountsEveryBucketOnce() {
    RetryBudgets one = RetryBudgets.one(new RetryBudget(1, 0));
    one.of(A).tryAcquire();
    one.of(A).tryAcquire();
    one.of(OTHER).tryAcquire();
    for (int i = 0; i < 6; i++) {
      budgets.of(A).tryAcquire();
    }
    budgets.of(OTHER).tryAcquire();

    assertThat(one.denied()).isEqualTo(2);
    assertThat(budgets.denied()).isEqualTo(1);
  }
}
