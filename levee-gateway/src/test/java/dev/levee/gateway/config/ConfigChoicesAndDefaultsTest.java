package dev.levee.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.budget.RetryBudget;
import dev.levee.core.chain.ChainPolicy;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.RetryPolicy;
import dev.levee.core.slo.SloTracker;
import dev.levee.core.tier.Priority;
import dev.levee.core.tier.TierControllerConfig;
import dev.levee.core.tier.TierThresholds;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Closed sets are enums whose config errors list the allowed values; defaults are the core classes' own. */
class ConfigChoicesAndDefaultsTest {

  private static final String UPSTREAM = "upstreams:\n  a:\n    url: https://api.example.com\n";

  private static GatewayConfig parse(String yaml) throws ConfigException {
    return new ConfigLoader(name -> null).parse(UPSTREAM + yaml, "levee.yaml");
  }

  @Test
  void featureChoicesAreReadInLowerCase() throws ConfigException {
    Feature f = parse("""
        features:
          chat: { priority: critical, fail-mode: closed, disclosure: inline, thinking: always }
        """).feature("chat");

    assertThat(f.priority()).isEqualTo(Priority.CRITICAL);
    assertThat(f.failMode()).isEqualTo(FailMode.CLOSED);
    assertThat(f.disclosure()).isEqualTo(Disclosure.INLINE);
    assertThat(f.thinking()).isEqualTo(ThinkingPolicy.ALWAYS);
  }

  @Test
  void aBadChoiceNamesTheKeyTheLineAndTheAllowedValues() {
    assertThatThrownBy(() -> parse("features:\n  chat:\n    priority: urgent\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 6")
        .hasMessageContaining("features.chat.priority")
        .hasMessageContaining("must be one of critical, standard, optional, was 'urgent'");
    assertThatThrownBy(() -> parse("features:\n  chat:\n    fail-mode: shut\n"))
        .hasMessageContaining("must be one of open, closed, was 'shut'");
    assertThatThrownBy(() -> parse("features:\n  chat:\n    disclosure: loud\n"))
        .hasMessageContaining("must be one of none, header, inline, was 'loud'");
    assertThatThrownBy(() -> parse("features:\n  chat:\n    thinking: sometimes\n"))
        .hasMessageContaining("must be one of t0, never, always, was 'sometimes'");
  }

  @Test
  void alwaysThinkingIsForCriticalFeaturesOnly() {
    assertThatThrownBy(() -> parse("features:\n  chat:\n    thinking: always\n"))
        .hasMessageContaining("thinking: always is for critical features only");
  }

  @Test
  void leftOutValuesTakeTheDefaultsOfTheCoreClassesThatOwnThem() throws ConfigException {
    GatewayConfig config = parse("");

    assertThat(config.policy().deadline()).isEqualTo(Deadline.DEFAULT_BUDGET);
    assertThat(config.policy().attemptTimeout()).isEqualTo(ChainPolicy.DEFAULT.attemptTimeout());
    assertThat(config.policy().minAttemptTime()).isEqualTo(ChainPolicy.DEFAULT.minAttemptTime());
    assertThat(config.policy().retry().policy()).isEqualTo(RetryPolicy.DEFAULT);
    assertThat(config.policy().retryBudget().max()).isEqualTo(RetryBudget.DEFAULT_MAX);
    assertThat(config.policy().retryBudget().ratio()).isEqualTo(RetryBudget.DEFAULT_RATIO);
    assertThat(config.tiers().evaluateEvery()).isEqualTo(TierControllerConfig.DEFAULT.evaluateEvery());
    assertThat(config.tiers().healthyFor()).isEqualTo(TierControllerConfig.DEFAULT.healthyFor());
    assertThat(config.tiers().slo()).isEqualTo(SloTracker.DEFAULT_TARGET);
    assertThat(config.tiers().p99Down().toMillis()).isEqualTo((long) TierThresholds.DEFAULT.p99DownMillis());
    assertThat(config.tiers().healthyP99().toMillis()).isEqualTo((long) TierThresholds.DEFAULT.healthyP99Millis());
    Feature defaults = config.feature("anything");
    assertThat(defaults.priority()).isEqualTo(Priority.STANDARD);
    assertThat(defaults.failMode()).isEqualTo(FailMode.OPEN);
    assertThat(defaults.disclosure()).isEqualTo(Disclosure.HEADER);
    assertThat(defaults.thinking()).isEqualTo(ThinkingPolicy.T0);
  }

  @Test
  void theFirstTokenLatencyBoundsAreSetTogetherAndHealthyStaysBelowDown() throws ConfigException {
    GatewayConfig config = parse("tiers: { p99-down: 5s, healthy-p99: 3s }\n");
    assertThat(config.tiers().p99Down()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.tiers().healthyP99()).isEqualTo(Duration.ofSeconds(3));

    assertThatThrownBy(() -> parse("tiers: { healthy-p99: 2s }\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 4")
        .hasMessageContaining("tiers.healthy-p99: healthy-p99 (2000 ms) must be below p99-down (800 ms, the default)")
        .hasMessageContaining("set both");
    assertThatThrownBy(() -> parse("tiers:\n  slo: 0.99\n  p99-down: 300ms\n"))
        .hasMessageContaining("line 6")
        .hasMessageContaining("tiers.p99-down: p99-down (300 ms) must be above healthy-p99 (500 ms, the default)");
    assertThatThrownBy(() -> parse("tiers:\n  p99-down: 300ms\n  healthy-p99: 400ms\n"))
        .hasMessageContaining("line 6")
        .hasMessageContaining("tiers.healthy-p99: healthy-p99 (400 ms) must be below p99-down (300 ms):")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("default"));
    assertThatThrownBy(() -> parse("tiers: { healthy-p99: 0s }\n"))
        .hasMessageContaining("healthy-p99 must be positive");
  }
}
