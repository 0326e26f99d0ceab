package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Time in tier, credited at each read to the tier seen at the previous read. */
class TierClockTest {

  @Test
  void creditsElapsedTimeToTheTierOfTheLastRead() {
    ManualClock clock = new ManualClock();
    Map<String, Tier> now = new HashMap<>(Map.of("chat", Tier.T0));
    TierClock tiers = new TierClock(List.of("chat"), now::get, clock);

    clock.advance(Duration.ofSeconds(30));
    assertThat(tiers.seconds("chat", Tier.T0)).isEqualTo(30.0);
    now.put("chat", Tier.T2);
    clock.advance(Duration.ofSeconds(15));
    assertThat(tiers.seconds("chat", Tier.T0)).isEqualTo(45.0); // the read at 30 s still saw T0
    clock.advance(Duration.ofSeconds(10));
    assertThat(tiers.seconds("chat", Tier.T2)).isEqualTo(10.0);
    assertThat(tiers.seconds("chat", Tier.T0)).isEqualTo(45.0);
    assertThat(tiers.seconds("other", Tier.T0)).isZero();
  }
}
