package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.message.TokenUsage;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Transition;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.route.PriceTable;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Model names a client invents fold into bounded label values; the series count stays fixed. */
class MetricsBoundedLabelsTest {

  private static final Target PRIMARY = Target.parse("anthropic/claude-sonnet-4-5");

  private final MetricLabels labels = new MetricLabels(Set.of(PRIMARY), Set.of("smart"), Set.of("default", "chat"),
      Set.of("claude-sonnet-4-5"));
  private final Metrics metrics = new Metrics(labels, PriceTable.defaults(), new ManualClock());

  @Test
  void inventedModelsAliasesAndFeaturesShareOneSeriesEach() {
    for (int i = 0; i < 50; i++) {
      Target invented = new Target("anthropic", "made-up-" + i);
      metrics.onFailure(invented, new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error", "slow down",
          Optional.of(Duration.ofSeconds(1)), Optional.empty()), Duration.ofMillis(10));
      metrics.onTransition(new Transition(invented.id(), CircuitState.CLOSED, CircuitState.OPEN, "test", 0));
      metrics.request(new ServedRequest("made-up-" + i, "feature-" + i, Tier.T0, 200, "ok", false, 1,
          Duration.ofMillis(100)));
      metrics.usage("feature-" + i, Tier.T0, "made-up-" + i, new TokenUsage(10, 10, 0, 0));
    }
    metrics.request(new ServedRequest(null, null, null, 400, "refused", false, 0, Duration.ofMillis(1)));
    String scrape = metrics.scrape();

    assertThat(scrape).contains("levee_attempts_total{outcome=\"rate_limited\",target=\"anthropic/*\"} 50.0")
        .contains("levee_cooldowns_total{target=\"anthropic/*\"} 50.0")
        .contains("levee_circuit_transitions_total{from=\"CLOSED\",target=\"anthropic/*\",to=\"OPEN\"} 50.0")
        .contains("levee_request_duration_seconds_count{alias=\"other\",endpoint=\"messages\",feature=\"other\",status_class=\"2xx\",tier=\"T0\"} 50")
        .contains("levee_request_duration_seconds_count{alias=\"-\",endpoint=\"messages\",feature=\"-\",status_class=\"4xx\",tier=\"-\"} 1")
        .contains("levee_tokens_total{model=\"other\",type=\"input\"} 500.0")
        .doesNotContain("made-up-")
        .doesNotContain("levee_cost_usd_total{"); // an unknown model has no price
    assertThat(scrape.lines().filter(l -> l.startsWith("levee_request_duration_seconds_bucket")).count())
        .as("12 buckets and +Inf for each of the two label sets").isEqualTo(26);
  }

  @Test
  void pricedUsageCountsDollarsByFeatureTierAndModel() {
    metrics.usage("chat", Tier.T1, "claude-sonnet-4-5", new TokenUsage(1000, 1000, 0, 0));
    assertThat(metrics.scrape())
        .contains("levee_cost_usd_total{feature=\"chat\",model=\"claude-sonnet-4-5\",tier=\"T1\"} 0.018");
    assertThat(metrics.cost().lastHour().at("/by_feature_and_tier/chat/T1").asDouble()).isEqualTo(0.018);
  }
}
