package dev.levee.gateway.health;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.core.budget.Budget;
import dev.levee.core.chain.RetryBudgets;
import dev.levee.core.chain.Target;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code retry_budget} figures of one {@code /health} report, reading each bucket's tokens
 * once (a shared bucket costs a round trip per read).
 *
 * <p>Per target: a configured target's own bucket as {@code {bucket: own, tokens, denied_here}}; a
 * model a client named itself as {@code {bucket: overflow}} only, since every such target draws on
 * the one overflow bucket, whose figures the summary shows once.
 *
 * <p>The gateway-wide summary counts buckets rather than taking a minimum (one permanently failing
 * target would pin a minimum at 0 and hide every other bucket): {@code buckets} (configured targets
 * + the overflow bucket), {@code drained} and {@code drained_buckets} (those with fewer than one
 * token, which refuse every retry, hedge and stream recovery now; target ids, then {@value
 * RetryBudgets#OVERFLOW}), {@code lowest_undrained} ({@code {bucket, tokens}}: the bucket with the
 * fewest tokens among those not drained, the next to run dry; null when every bucket is drained),
 * {@code max} (each bucket's capacity, tokens), {@code overflow} ({@code {tokens, denied_here}}),
 * {@code denied_here} (every bucket together) and {@code tokens_from}.
 *
 * <p>Scope, under {@code cluster:}: {@code tokens} are the cluster's shared bucket while Redis answers
 * ({@code tokens_from: cluster}) and this replica's own otherwise ({@code replica}); {@code
 * denied_here} always counts the calls this replica was refused (each replica counts its own, as
 * {@code levee_retry_budget_denied_total} does: add the replicas' figures for the cluster's).
 *
 * <p>Not thread-safe: one instance per report.
 */
final class RetryBudgetReport {

  /** A bucket with fewer tokens than this cannot pay for a retry (one token each): drained. */
  static final double DRAINED_BELOW = 1;

  private final RetryBudgets budgets;
  private final boolean sharedTokens;
  private final Map<Budget, Double> tokens = new IdentityHashMap<>();

  /**
   * @param sharedTokens whether the buckets' tokens are read from the cluster's shared buckets now
   *     (Redis answers), for {@code tokens_from}
   */
  RetryBudgetReport(RetryBudgets budgets, boolean sharedTokens) {
    this.budgets = budgets;
    this.sharedTokens = sharedTokens;
  }

  /** Puts {@code target}'s {@code retry_budget} into its {@code /health} entry. */
  void putTarget(ObjectNode entry, Target target) {
    ObjectNode node = entry.putObject("retry_budget");
    if (!budgets.hasOwn(target)) {
      node.put("bucket", RetryBudgets.OVERFLOW); // the overflow bucket's figures are in the summary, once
      return;
    }
    node.put("bucket", "own");
    putFigures(node, budgets.of(target));
  }

  /** Puts the gateway-wide {@code retry_budget} summary into {@code root}. */
  void putSummary(ObjectNode root) {
    Map<String, Budget> buckets = new LinkedHashMap<>();
    budgets.configured().forEach((target, bucket) -> buckets.put(target.id(), bucket));
    buckets.put(RetryBudgets.OVERFLOW, budgets.overflow());
    ObjectNode node = root.putObject("retry_budget");
    node.put("tokens_from", sharedTokens ? "cluster" : "replica");
    node.put("max", budgets.overflow().max());
    node.put("buckets", buckets.size());
    ArrayNode drained = Json.MAPPER.createArrayNode();
    String lowest = null;
    double lowestTokens = Double.POSITIVE_INFINITY;
    for (Map.Entry<String, Budget> bucket : buckets.entrySet()) {
      double left = tokens(bucket.getValue());
      if (left < DRAINED_BELOW) {
        drained.add(bucket.getKey());
      } else if (left < lowestTokens) {
        lowest = bucket.getKey();
        lowestTokens = left;
      }
    }
    node.put("drained", drained.size());
    node.set("drained_buckets", drained);
    if (lowest == null) {
      node.putNull("lowest_undrained");
    } else {
      ObjectNode next = node.putObject("lowest_undrained");
      next.put("bucket", lowest);
      next.put("tokens", round(lowestTokens));
    }
    putFigures(node.putObject(RetryBudgets.OVERFLOW), budgets.overflow());
    node.put("denied_here", budgets.denied());
  }

  private void putFigures(ObjectNode node, Budget bucket) {
    node.put("tokens", round(tokens(bucket)));
    node.put("denied_here", bucket.denied());
  }

  private double tokens(Budget bucket) {
    return tokens.computeIfAbsent(bucket, Budget::remaining);
  }

  private static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
