package dev.levee.gateway.route;

import dev.levee.core.route.ModelPrice;
import dev.levee.core.route.PriceTable;
import dev.levee.core.route.StatisticsConfig;
import dev.levee.core.route.TaskFitMatrix;
import dev.levee.core.route.TaskType;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The scoring router's settings as the config file states them (a {@code routing:} section,
 * kebab-case keys, every one optional), and the core values they build. Meant to be read by the
 * gateway's config loader once the Planner wires the router (issue 13 phase 2):
 *
 * <pre>
 * routing:
 *   half-life: 10m                 # how fast failures are forgotten
 *   prices:                        # dollars per million tokens, as Anthropic publishes them
 *     claude-opus-4-6: {input: 5, output: 25}
 *   task-fit:                      # family or model → task → 0..1; replaces that row
 *     opus: {simple: 0.5, complex: 1.0, creative: 1.0, code: 0.9}
 *   typical-latency:               # latency assumed before measurements
 *     claude-opus-4-6: 3s
 * </pre>
 *
 * @param halfLife see {@link StatisticsConfig#halfLife()}; default 10 minutes
 * @param prices per model, added to (or replacing entries of) {@link PriceTable#defaults()}
 * @param taskFit rows added to (or replacing rows of) {@link TaskFitMatrix#defaults()}
 * @param typicalLatency per model name; models not listed assume 2 s
 * @throws IllegalArgumentException naming the key whose value is not allowed
 */
public record RoutingSettings(Duration halfLife, Map<String, Price> prices, Map<String, Map<String, Double>> taskFit,
    Map<String, Duration> typicalLatency) {

  /** Everything default. */
  public static final RoutingSettings DEFAULT = new RoutingSettings(null, null, null, null);

  /**
   * A price in dollars per million tokens.
   *
   * @param input base input tokens
   * @param output output tokens
   */
  public record Price(Double input, Double output) {
    public Price {
      if (input == null || output == null) {
        throw new IllegalArgumentException("a price needs input and output, in dollars per million tokens");
      }
      if (!(input >= 0 && output >= 0) || input.isInfinite() || output.isInfinite()) {
        throw new IllegalArgumentException("prices must be finite and >= 0, were " + input + " / " + output);
      }
    }
  }

  public RoutingSettings {
    halfLife = halfLife == null ? StatisticsConfig.DEFAULT.halfLife() : halfLife;
    prices = prices == null ? Map.of() : Map.copyOf(prices);
    taskFit = taskFit == null ? Map.of() : Map.copyOf(taskFit);
    typicalLatency = typicalLatency == null ? Map.of() : Map.copyOf(typicalLatency);
    if (!halfLife.isPositive()) {
      throw new IllegalArgumentException("half-life must be positive, was " + halfLife);
    }
    typicalLatency.forEach((model, latency) -> {
      if (!latency.isPositive()) {
        throw new IllegalArgumentException("typical-latency of " + model + " must be positive, was " + latency);
      }
    });
    taskFitMatrix(taskFit); // validates task names and ranges
  }

  /**
   * The default list prices ({@link PriceTable#defaults()}) with the configured ones added or
   * replacing entries, in dollars per 1k tokens: the one table both the router and the cost
   * metrics ({@code levee_cost_usd_total}, {@code /health}'s {@code cost}) price with.
   */
  public PriceTable priceTable() {
    Map<String, ModelPrice> configured = new LinkedHashMap<>();
    prices.forEach((model, price) -> configured.put(model, ModelPrice.perMillion(price.input(), price.output())));
    return PriceTable.defaults().with(configured);
  }

  /** The default matrix with the configured rows added or replacing rows of the same key. */
  public TaskFitMatrix taskFitMatrix() {
    return taskFitMatrix(taskFit);
  }

  /** The statistics' configuration: α 0.1, this half-life, 5-minute p95 window, these typical latencies. */
  public StatisticsConfig statisticsConfig() {
    return StatisticsConfig.DEFAULT.withHalfLife(halfLife).withTypicalLatency(typicalLatency);
  }

  private static TaskFitMatrix taskFitMatrix(Map<String, Map<String, Double>> configured) {
    Map<String, Map<TaskType, Double>> rows = new LinkedHashMap<>(TaskFitMatrix.defaults().rows());
    configured.forEach((key, row) -> {
      Map<TaskType, Double> parsed = new EnumMap<>(TaskType.class);
      row.forEach((task, fit) -> {
        TaskType type = TaskType.parse(task).orElseThrow(() -> new IllegalArgumentException(
            "task-fit of " + key + ": '" + task + "' is not a task (simple, complex, creative, code)"));
        if (fit == null || !(fit >= 0 && fit <= 1)) {
          throw new IllegalArgumentException("task-fit of " + key + " for " + task + " must be within 0..1, was " + fit);
        }
        parsed.put(type, fit);
      });
      rows.put(key.toLowerCase(Locale.ROOT), parsed);
    });
    return TaskFitMatrix.of(rows);
  }
}
