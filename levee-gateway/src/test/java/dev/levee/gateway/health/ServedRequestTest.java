package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.tier.Tier;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The source and cache result of an answer, read from the access record's outcome word. */
class ServedRequestTest {

  private static ServedRequest r(String outcome, boolean fallback) {
    return new ServedRequest("smart", "chat", Tier.T0, 200, outcome, fallback, 1, Duration.ZERO);
  }

  @Test
  void sourcesAndCacheResults() {
    assertThat(r("ok", false).source()).isEqualTo("primary");
    assertThat(r("stream_complete", true).source()).isEqualTo("fallback");
    assertThat(r("cache_hit", false).source()).isEqualTo("cache");
    assertThat(r("cache_semantic", false).source()).isEqualTo("semantic");
    assertThat(r("last_resort_stale", false).source()).isEqualTo("stale");
    assertThat(r("static", false).source()).isEqualTo("static");
    assertThat(r("exhausted", false).source()).isEqualTo("none");
    assertThat(r("stream_failed", false).source()).isEqualTo("none");
    assertThat(r("cache_semantic", false).cacheResult()).isEqualTo("semantic");
    assertThat(r("last_resort_hit", false).cacheResult()).isEqualTo("hit");
    assertThat(r("ok", false).cacheResult()).isNull();
    assertThat(MetricLabels.statusClass(499)).isEqualTo("4xx");
    assertThat(MetricLabels.statusClass(529)).isEqualTo("5xx");
  }
}
