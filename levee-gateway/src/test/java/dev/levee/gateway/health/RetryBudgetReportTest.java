package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.core.budget.Budget;
import dev.levee.core.chain.RetryBudgets;
import dev.levee.core.chain.Target;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code /health}'s retry-budget figures: per target, and the summary that counts drained buckets. */
class RetryBudgetReportTest {

  static final Target A = Target.parse("emu/claude-a");
  static final Target B = Target.parse("emu/claude-b");
  static final Target NAMED = Target.parse("emu/named-by-a-client");

  final RetryBudgets budgets = RetryBudgets.local(List.of(A, B), 4, 0.5);

  @Test
  void aConfiguredTargetShowsItsOwnBucket() {
    spend(budgets.of(A), 5); // 4 spent, 1 refused

    JsonNode a = target(A);

    assertThat(a.path("bucket").asText()).isEqualTo("own");
    assertThat(a.path("tokens").asDouble()).isZero();
    assertThat(a.path("denied_here").asLong()).isEqualTo(1);
  }

  @Test
  void aClientNamedTargetOnlyPointsAtTheOverflowBucket() {
    spend(budgets.overflow(), 5);

    assertThat(target(NAMED).toString()).isEqualTo("{\"bucket\":\"overflow\"}");
    JsonNode overflow = summary(true).path("overflow");
    assertThat(overflow.path("tokens").asDouble()).isZero();
    assertThat(overflow.path("denied_here").asLong()).isEqualTo(1);
  }

  @Test
  void theSummaryCountsAndNamesDrainedBucketsAndShowsTheLowestOfTheOthers() {
    spend(budgets.of(A), 4);
    spend(budgets.overflow(), 1);

    JsonNode summary = summary(false);

    assertThat(summary.path("buckets").asInt()).isEqualTo(3);
    assertThat(summary.path("drained").asInt()).isEqualTo(1);
    assertThat(summary.path("drained_buckets")).extracting(JsonNode::asText).containsExactly("emu/claude-a");
    assertThat(summary.path("lowest_undrained").path("bucket").asText()).isEqualTo("overflow");
    assertThat(summary.path("lowest_undrained").path("tokens").asDouble()).isEqualTo(3.0);
    assertThat(summary.path("max").asDouble()).isEqualTo(4.0);
    assertThat(summary.path("tokens_from").asText()).isEqualTo("replica");
  }

  @Test
  void aBucketWithLessThanOneTokenIsDrained() {
    spend(budgets.of(B), 4);
    budgets.of(B).onSuccess(); // half a token: still no retry

    assertThat(summary(true).path("drained_buckets")).extracting(JsonNode::asText).containsExactly("emu/claude-b");
  }

  @Test
  void whenEveryBucketIsDrainedNoneIsLowestAndRefusalsAreSummed() {
    spend(budgets.of(A), 5);
    spend(budgets.of(B), 6);
    spend(budgets.overflow(), 4);

    JsonNode summary = summary(true);

    assertThat(summary.path("drained").asInt()).isEqualTo(3);
    assertThat(summary.path("drained_buckets")).extracting(JsonNode::asText)
        .containsExactly("emu/claude-a", "emu/claude-b", "overflow");
    assertThat(summary.path("lowest_undrained").isNull()).isTrue();
    assertThat(summary.path("denied_here").asLong()).isEqualTo(3);
    assertThat(summary.path("tokens_from").asText()).isEqualTo("cluster");
  }

  @Test
  void eachBucketIsReadOnceAReport() {
    CountingBudget counted = new CountingBudget();
    RetryBudgets one = new RetryBudgets(List.of(A, B), t -> counted, counted);
    RetryBudgetReport report = new RetryBudgetReport(one, true);
    ObjectNode root = Json.MAPPER.createObjectNode();

    report.putTarget(root.putObject("a"), A);
    report.putTarget(root.putObject("b"), B);
    report.putSummary(root);

    assertThat(counted.reads).isEqualTo(1);
  }

  private JsonNode target(Target target) {
    ObjectNode entry = Json.MAPPER.createObjectNode();
    new RetryBudgetReport(budgets, false).putTarget(entry, target);
    return entry.path("retry_budget");
  }

  private JsonNode summary(boolean shared) {
    ObjectNode root = Json.MAPPER.createObjectNode();
    new RetryBudgetReport(budgets, shared).putSummary(root);
    return root.path("retry_budget");
  }

  private static void spend(Budget bucket, int calls) {
    for (int i = 0; i < calls; i++) {
      bucket.tryAcquire();
    }
  }

  /** A bucket that counts how often its tokens are read (a shared one pays a round trip each). */
  private static final class CountingBudget implements Budget {
    int reads;

    @Override public boolean tryAcquire() { return true; }
    @Override public void onSuccess() {}
    @Override public double remaining() { reads++; return 2; }
    @Override public double max() { return 2; }
    @Override public long denied() { return 0; }
  }
}
