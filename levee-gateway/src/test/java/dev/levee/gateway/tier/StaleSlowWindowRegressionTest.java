package dev.levee.gateway.tier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fresh evidence for latency: the p99 signal reads the SLI window (60 s) and the short window
 * (10 s) together, as the 5xx and 429 shares and the burn already did. Before, p99 read the SLI
 * window alone: slow first tokens a minute old held a scope below T0 after latency had recovered
 * (one slow sample in a hundred is a p99), and a window that reached the minimum volume only with
 * later, fast calls stepped a scope down on its old slow ones.
 */
class StaleSlowWindowRegressionTest {

  private static final Target SLOW = Target.parse("anthropic/claude-slow");
  private static final Target SMALL = Target.parse("anthropic/claude-small");
  private static final List<Target> SMART = List.of(SLOW, SMALL);

  private final ManualClock clock = new ManualClock();

  private TierBoard board() throws Exception {
    GatewayConfig config = new ConfigLoader(Map.<String, String>of()::get).parse("""
        upstreams:
          anthropic: { url: "https://api.anthropic.com" }
        models:
          smart: { chain: [anthropic/claude-slow, anthropic/claude-small] }
        """, "test.yaml");
    return new TierBoard(config, clock, clock, InstantSource.system(), (delay, task) -> () -> { }); // evaluated below
  }

  /** {@code n} streamed requests, 100 ms apart, whose first token took {@code ttft} on the target of their tier. */
  private void streams(TierBoard board, int n, Duration ttft) {
    for (int i = 0; i < n; i++) {
      Tier tier = board.tier("default", "smart", SMART);
      board.onSuccess(tier == Tier.T0 ? SLOW : SMALL, ttft, true);
      board.answered("default", "smart", ttft);
      clock.advance(Duration.ofMillis(100));
    }
  }

  private String reason(TierBoard board) {
    return board.status().get(0).path("aliases").get(0).path("last_reason").asText();
  }

  @Test
  void aScopeSteppedDownOnLatencyStepsUpOnceTheShortWindowIsFastNotWhenTheMinuteForgets() throws Exception {
    try (TierBoard board = board()) {
      streams(board, 30, Duration.ofMillis(1_500)); // 3 s of slow first tokens
      board.evaluateAll();
      assertThat(board.tier("default", "smart", SMART)).as("slow now: one step down").isEqualTo(Tier.T1);

      long recovered = clock.nanos();
      Tier tier = Tier.T1;
      while (tier == Tier.T1 && clock.nanos() - recovered < Duration.ofSeconds(70).toNanos()) {
        streams(board, 50, Duration.ofMillis(60)); // 5 s of fast first tokens at T1, then an evaluation
        board.evaluateAll();
        tier = board.tier("default", "smart", SMART);
      }

      assertThat(tier).isEqualTo(Tier.T0);
      assertThat(Duration.ofNanos(clock.nanos() - recovered))
          .as("back after the short window (10 s) and healthy-for (30 s); before, the minute's slow samples held it ~90 s")
          .isLessThanOrEqualTo(Duration.ofSeconds(45));
    }
  }

  @Test
  void slowSamplesOlderThanTheShortWindowNeverStepAScopeDown() throws Exception {
    try (TierBoard board = board()) {
      streams(board, 15, Duration.ofMillis(1_500)); // too few to judge (minimum volume 20)
      board.evaluateAll();
      assertThat(reason(board)).startsWith("quiet: 15 calls, fewer than the 20 needed to judge");

      clock.advance(Duration.ofSeconds(15));
      streams(board, 10, Duration.ofMillis(60)); // fast now; the window reaches the minimum volume
      board.evaluateAll();

      assertThat(board.tier("default", "smart", SMART)).as("a p99 of old samples is no reason to step down")
          .isEqualTo(Tier.T0);
      assertThat(reason(board)).contains("but 60 ms within the short window: over");

      streams(board, 10, Duration.ofMillis(1_500)); // slow again, now
      board.evaluateAll();
      assertThat(board.tier("default", "smart", SMART)).isEqualTo(Tier.T1);
    }
  }
}
