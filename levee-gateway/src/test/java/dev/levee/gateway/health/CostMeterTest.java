package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.levee.anthropic.message.TokenUsage;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.core.route.PriceTable;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Usage priced with the router's table; the last hour of spend on virtual time. */
class CostMeterTest {

  private final ManualClock clock = new ManualClock();
  private final CostMeter meter = new CostMeter(PriceTable.defaults(), clock);

  @Test
  void pricesInputOutputAndCacheTokensAtTheModelsListPrice() {
    // claude-sonnet-4-5: $3 / $15 per MTok
    assertThat(meter.price("claude-sonnet-4-5", new TokenUsage(1000, 1000, 0, 0))).hasValueSatisfying(
        usd -> assertThat(usd).isCloseTo(0.003 + 0.015, within(1e-12)));
    assertThat(meter.price("claude-sonnet-4-5-20250929", new TokenUsage(0, 0, 10_000, 1000))).hasValueSatisfying(
        usd -> assertThat(usd).isCloseTo(10 * 0.003 * 0.1 + 0.003 * 1.25, within(1e-12)));
    assertThat(meter.price("emu-ok", new TokenUsage(1000, 1000, 0, 0))).isEmpty();
  }

  @Test
  void theLastHourForgetsOlderMinutesAndIsScaledToAnHourWhileYounger() {
    meter.spent("chat", Tier.T0, 1.0);
    clock.advance(Duration.ofMinutes(30));
    meter.spent("chat", Tier.T2, 0.5);

    ObjectNode half = meter.lastHour();
    assertThat(half.path("usd_last_hour").asDouble()).isEqualTo(1.5);
    assertThat(half.path("usd_per_hour").asDouble()).isEqualTo(3.0); // 1.5 in half an hour
    assertThat(half.at("/by_feature_and_tier/chat/T2").asDouble()).isEqualTo(0.5);

    clock.advance(Duration.ofMinutes(31));
    ObjectNode later = meter.lastHour();
    assertThat(later.path("usd_last_hour").asDouble()).isEqualTo(0.5); // the first dollar is 61 minutes old
    assertThat(later.path("usd_per_hour").asDouble()).isEqualTo(0.5);
    assertThat(later.at("/by_feature_and_tier/chat").has("T0")).isFalse();
  }
}
