package dev.levee.gateway.health;

import dev.levee.anthropic.message.TokenUsage;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.core.route.ModelPrice;
import dev.levee.core.route.PriceTable;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.Ticker;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Prices token usage and keeps the last hour of spend for {@code /health}.
 *
 * <p>Input and output tokens are priced at the model's {@link PriceTable} entry (the gateway gives
 * it the router's table, {@code RoutingSettings#priceTable()}: levee-core's documented defaults
 * with the configured {@code routing.prices}); prompt-cache reads at {@value #CACHE_READ} × and
 * cache writes at {@value #CACHE_WRITE} × the input price, Anthropic's multipliers for the
 * 5-minute prompt cache (<a href="https://platform.claude.com/docs/en/build-with-claude/prompt-caching">Prompt
 * caching</a>). A model the table does not know has no price: its usage is not turned into dollars.
 *
 * <p>The hour is 60 one-minute buckets per feature and tier, on the injected ticker. Thread-safe.
 */
public final class CostMeter {

  /** Cache reads cost this share of the input price. */
  public static final double CACHE_READ = 0.1;
  /** Cache writes (5-minute cache) cost this multiple of the input price. */
  public static final double CACHE_WRITE = 1.25;

  private static final long MINUTE = 60_000_000_000L;
  private static final int MINUTES = 60;

  private final PriceTable prices;
  private final Ticker ticker;
  private final long startNanos;
  private final Map<String, Hour> hours = new TreeMap<>();

  /**
   * @param prices the dollars per 1k input and output tokens of each model; a model it does not
   *     price is counted in no dollars
   * @param ticker time for the one-minute buckets of the last hour (nanoseconds)
   */
  public CostMeter(PriceTable prices, Ticker ticker) {
    this.prices = prices;
    this.ticker = ticker;
    this.startNanos = ticker.nanos();
  }

  /** The dollars {@code usage} of {@code model} cost, or empty when the model has no price. */
  public Optional<Double> price(String model, TokenUsage usage) {
    return prices.priceOf(model).map(p -> dollars(p, usage));
  }

  private static double dollars(ModelPrice p, TokenUsage u) {
    return (u.input() + u.cacheRead() * CACHE_READ + u.cacheCreation() * CACHE_WRITE) / 1000.0 * p.inputPer1k()
        + u.output() / 1000.0 * p.outputPer1k();
  }

  /** Adds {@code usd} spent by {@code feature} at {@code tier} now. */
  public synchronized void spent(String feature, Tier tier, double usd) {
    hours.computeIfAbsent(feature + "\u0000" + tier.name(), k -> new Hour()).add(minute(), usd);
  }

  /**
   * The last hour: {@code usd_last_hour}, {@code usd_per_hour} (the last hour's spend, scaled up
   * when the gateway has run for less than an hour) and the same per feature and tier.
   */
  public synchronized ObjectNode lastHour() {
    long now = minute();
    double elapsedHours = Math.min(1.0, Math.max(1.0 / 60, (ticker.nanos() - startNanos) / (double) (MINUTES * MINUTE)));
    ObjectNode out = Json.MAPPER.createObjectNode();
    ObjectNode by = Json.MAPPER.createObjectNode();
    double total = 0;
    for (Map.Entry<String, Hour> e : hours.entrySet()) {
      double usd = e.getValue().sum(now);
      if (usd == 0) {
        continue;
      }
      total += usd;
      String[] key = e.getKey().split("\u0000");
      by.withObjectProperty(key[0]).put(key[1], round(usd));
    }
    out.put("usd_last_hour", round(total));
    out.put("usd_per_hour", round(total / elapsedHours));
    out.set("by_feature_and_tier", by);
    return out;
  }

  private long minute() {
    return (ticker.nanos() - startNanos) / MINUTE;
  }

  private static double round(double usd) {
    return Math.round(usd * 1_000_000) / 1_000_000.0;
  }

  /** Sixty one-minute buckets. Guarded by the meter's lock. */
  private static final class Hour {
    private final long[] minutes = new long[MINUTES];
    private final double[] usd = new double[MINUTES];

    Hour() {
      java.util.Arrays.fill(minutes, -1);
    }

    void add(long minute, double dollars) {
      int i = (int) (minute % MINUTES);
      if (minutes[i] != minute) {
        minutes[i] = minute;
        usd[i] = 0;
      }
      usd[i] += dollars;
    }

    double sum(long now) {
      double sum = 0;
      for (int i = 0; i < MINUTES; i++) {
        if (minutes[i] >= 0 && now - minutes[i] < MINUTES) {
          sum += usd[i];
        }
      }
      return sum;
    }
  }
}
