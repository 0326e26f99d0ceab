package dev.levee.core.route;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Prices per model name, for the cost term of the score. Immutable and thread-safe.
 *
 * <p>A model name is looked up as written, then without a trailing snapshot date ({@code
 * -20250929}) or {@code -latest}, so {@code claude-sonnet-4-5-20250929} is priced as {@code
 * claude-sonnet-4-5}. No other prefix matching: an unknown model is unpriced rather than guessed.
 *
 * <p>{@link #defaults()} holds Anthropic's list prices for the Claude API as documented on the
 * pricing page, <a href="https://platform.claude.com/docs/en/about-claude/pricing">Model
 * pricing</a>, and the model overview pages (for example
 * <a href="https://platform.claude.com/docs/en/models/sonnet-4-6/overview">Claude Sonnet 4.6</a>:
 * $3 / $15 per MTok), as read on 2026-12-01, in dollars per 1,000 tokens:
 *
 * <table>
 *   <caption>Default prices (dollars per 1k tokens, input / output)</caption>
 *   <tr><td>claude-fable-5-1, claude-fable-5</td><td>0.010 / 0.050</td></tr>
 *   <tr><td>claude-opus-5-5</td><td>0.004 / 0.020</td></tr>
 *   <tr><td>claude-opus-5, -4-8, -4-7, -4-6, -4-5</td><td>0.005 / 0.025</td></tr>
 *   <tr><td>claude-opus-4-1, claude-opus-4-0</td><td>0.015 / 0.075</td></tr>
 *   <tr><td>claude-sonnet-5-5, claude-sonnet-5</td><td>0.002 / 0.010</td></tr>
 *   <tr><td>claude-sonnet-4-6, -4-5, -4-0</td><td>0.003 / 0.015</td></tr>
 *   <tr><td>claude-haiku-5-5</td><td>0.0001 / 0.0005 (prompts up to 100k tokens; longer prompts
 *       pay 0.0005 / 0.0025, which this table does not model)</td></tr>
 *   <tr><td>claude-haiku-4-5</td><td>0.001 / 0.005</td></tr>
 *   <tr><td>claude-3-5-haiku</td><td>0.0008 / 0.004</td></tr>
 * </table>
 *
 * <p>Prices change: configuration replaces or extends this table ({@link #with}). Batch
 * discounts, cache reads/writes and long-context surcharges are not part of the routing estimate.
 */
public final class PriceTable {

  private static final Pattern SNAPSHOT_SUFFIX = Pattern.compile("(-\\d{8}|-latest)$");

  private static final PriceTable DEFAULTS = defaultTable();

  private final Map<String, ModelPrice> byModel;

  private PriceTable(Map<String, ModelPrice> byModel) {
    this.byModel = Map.copyOf(byModel);
  }

  /** Anthropic's documented list prices (see the class comment). */
  public static PriceTable defaults() {
    return DEFAULTS;
  }

  /** A table holding exactly {@code prices} (model name → price). */
  public static PriceTable of(Map<String, ModelPrice> prices) {
    prices.forEach((model, price) -> {
      Objects.requireNonNull(model, "model");
      Objects.requireNonNull(price, "price");
    });
    return new PriceTable(prices);
  }

  /** This table with {@code prices} added, replacing the entries of the same model names. */
  public PriceTable with(Map<String, ModelPrice> prices) {
    Map<String, ModelPrice> merged = new LinkedHashMap<>(byModel);
    merged.putAll(prices);
    return of(merged);
  }

  /** The price of {@code model}, or empty when the table has none (see the class comment). */
  public Optional<ModelPrice> priceOf(String model) {
    ModelPrice exact = byModel.get(model);
    if (exact != null) {
      return Optional.of(exact);
    }
    if (!model.endsWith("-latest") && !endsWithDate(model)) { // asked per answer: no matcher for plain names
      return Optional.empty();
    }
    return Optional.ofNullable(byModel.get(SNAPSHOT_SUFFIX.matcher(model).replaceFirst("")));
  }

  /** Whether {@code model} ends with {@code -} and eight digits (a snapshot date). */
  private static boolean endsWithDate(String model) {
    int n = model.length();
    if (n < 9 || model.charAt(n - 9) != '-') {
      return false;
    }
    for (int i = n - 8; i < n; i++) {
      if (model.charAt(i) < '0' || model.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  /** Every entry, model name → price. */
  public Map<String, ModelPrice> entries() {
    return byModel;
  }

  private static PriceTable defaultTable() {
    Map<String, ModelPrice> prices = new LinkedHashMap<>();
    put(prices, ModelPrice.perMillion(10, 50), "claude-fable-5-1", "claude-fable-5");
    put(prices, ModelPrice.perMillion(4, 20), "claude-opus-5-5");
    put(prices, ModelPrice.perMillion(5, 25),
        "claude-opus-5", "claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6", "claude-opus-4-5");
    put(prices, ModelPrice.perMillion(15, 75), "claude-opus-4-1", "claude-opus-4-0");
    put(prices, ModelPrice.perMillion(2, 10), "claude-sonnet-5-5", "claude-sonnet-5");
    put(prices, ModelPrice.perMillion(3, 15), "claude-sonnet-4-6", "claude-sonnet-4-5", "claude-sonnet-4-0");
    put(prices, ModelPrice.perMillion(0.10, 0.50), "claude-haiku-5-5");
    put(prices, ModelPrice.perMillion(1, 5), "claude-haiku-4-5");
    put(prices, ModelPrice.perMillion(0.80, 4), "claude-3-5-haiku");
    return new PriceTable(prices);
  }

  private static void put(Map<String, ModelPrice> prices, ModelPrice price, String... models) {
    for (String model : models) {
      prices.put(model, price);
    }
  }
}
