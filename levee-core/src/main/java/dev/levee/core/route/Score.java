package dev.levee.core.route;

import dev.levee.core.chain.Target;
import java.time.Duration;
import java.util.Locale;

/**
 * One candidate's score for one request, term by term, so a decision can be explained.
 *
 * <p>The published formula (points, 0..115 with the cost preference, 0..100 otherwise):
 * <pre>
 *   reliability = success EMA × 30
 *   latency     = max(0, 1 − p95 / latency budget) × 25
 *   cost        = 1 / (1 + estimated input cost × 100) × (35 if the request prefers cost, else 15)
 *                 with estimated input cost = input tokens / 1000 × price per 1k input tokens ($)
 *   task fit    = fit(model, task) × 30
 * </pre>
 * A model missing from the price table gets half the cost weight (its factor reads 0.5, as an
 * unknown model's task fit does).
 *
 * @param target the candidate
 * @param success the success EMA it was scored with, 0..1
 * @param p95 the p95 latency it was scored with
 * @param estimatedInputCost the estimated input cost in dollars, or NaN when the model is unpriced
 * @param reliability the reliability points
 * @param latency the latency-fit points
 * @param cost the cost points
 * @param taskFit the task-fit points
 */
public record Score(Target target, double success, Duration p95, double estimatedInputCost,
    double reliability, double latency, double cost, double taskFit) {

  /** Weight of the success rate. */
  public static final double RELIABILITY_WEIGHT = 30;
  /** Weight of the latency fit. */
  public static final double LATENCY_WEIGHT = 25;
  /** Weight of the cost term when the request prefers cost. */
  public static final double COST_WEIGHT_PREFERRED = 35;
  /** Weight of the cost term otherwise. */
  public static final double COST_WEIGHT = 15;
  /** Weight of the task fit. */
  public static final double TASK_FIT_WEIGHT = 30;

  /**
   * Scores one candidate.
   *
   * @param reading the target's statistics now
   * @param price its price, or null when unpriced
   * @param fit its task fit for the request's task, 0..1
   */
  public static Score of(Target target, TargetReading reading, ModelPrice price, double fit, RouteRequest request) {
    double budgetMs = request.latencyBudget().toNanos() / 1e6;
    double p95Ms = reading.p95().toNanos() / 1e6;
    double latencyFit = Math.max(0, 1 - p95Ms / budgetMs);
    double costWeight = request.preference() == Preference.COST ? COST_WEIGHT_PREFERRED : COST_WEIGHT;
    double estimatedCost = price == null ? Double.NaN : price.inputCost(request.inputTokens());
    double costFactor = price == null ? 0.5 : 1 / (1 + estimatedCost * 100);
    return new Score(target, reading.success(), reading.p95(), estimatedCost,
        reading.success() * RELIABILITY_WEIGHT, latencyFit * LATENCY_WEIGHT, costFactor * costWeight,
        fit * TASK_FIT_WEIGHT);
  }

  /** The sum of the four terms. */
  public double total() {
    return reliability + latency + cost + taskFit;
  }

  /** {@code model=88.4}: the total to one decimal, as {@code x-levee-route} lists it. */
  public String label(String name) {
    return name + "=" + String.format(Locale.ROOT, "%.1f", total());
  }
}
