package dev.levee.core.tier;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * With JSON-only traffic (a JSON answer is no latency sample: its time is its length) a healthy
 * reason read {@code "healthy: p99 0 ms, …"}, as if the first tokens came at once. A window
 * without latency samples says so instead.
 */
class JsonOnlyTrafficHasNoP99RegressionTest {

  @Test
  void aHealthyWindowWithoutLatencySamplesSaysSoRatherThanZeroMs() {
    SliReading jsonOnly = new SliReading(0, 0, 0, 1000, 0, 0, 1000, 0, "", true, false, "");

    String reason = new TierDecider().decide(Tier.T0, jsonOnly, Priority.STANDARD).reason();

    assertThat(reason).isEqualTo("healthy: no latency samples, 5xx 0.0%, 429 0.0%, already at T0")
        .doesNotContain("0 ms");
  }
}
