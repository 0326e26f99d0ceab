package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial, "after a 70 s outage, recovery took about 5 minutes": alias {@code fast} has one
 * target; its upstream answered 529 for 70 s, then healed. The pair went down to T2, where repeated
 * prompts were answered from the cache — no upstream call, so the healed target's circuit stayed
 * OPEN with its trial ready and nobody took it — and the 5 min burn of the clients who got a stale
 * answer during the outage held the pair at T2 ({@code quiet: 0 calls < 20, burn 30.2 (5m) >= 14.4:
 * hold}) until the outage left the window, about 4.5 min after the heal.
 *
 * <p>Now a request at T2 is the trial of a trial-ready circuit of the reduced target (one an
 * evaluation) instead of a cache hit, and the burn holds a tier only while clients fail now (a
 * client failed within the short window): the pair is back at T0 about an open period and two
 * {@code healthy-for} after the heal. A real outage still degrades at once and stays down: the
 * probes fail, and each failed probe is a fresh failure.
 *
 * <p>One long-lived gateway and emulator on one manual clock (breaker, tier evaluation, the
 * emulator's incident). Traffic as in the trial's alias: a long healthy prelude (the 1 h burn
 * window), busier clients during the outage.
 */
class RecoveryAfterAnOutageAnsweredFromCacheRegressionTest {

  private static final Target FAST = new Target("emu", "claude-fast");
  private static final Duration PRELUDE = Duration.ofMinutes(10);
  private static final Duration OUTAGE = Duration.ofSeconds(70);

  private final ManualClock clock = new ManualClock();
  @AutoClose
  private Harness harness;
  private int asked;

  private void start() throws Exception {
    harness = VirtualTime.start(clock, 5, VirtualTime.overloaded("claude-fast", PRELUDE, PRELUDE.plus(OUTAGE)), """
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 3, window: 30s, open-for: 10s, close-after: 2 }
        models:
          fast: { chain: [emu/claude-fast] }
        features:
          chat: { priority: critical }
        tiers:
          evaluate-every: 2s
          healthy-for: 20s
        """);
  }

  /** One client request with one of ten repeated prompts; every one is answered (upstream or cache). */
  private HttpResponse<String> ask() throws Exception {
    HttpResponse<String> r = harness.post("/v1/messages", ClientRequests.message("fast", 30, "q " + (asked++ % 10)),
        ClientRequests.forFeature("chat"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r;
  }

  private Tier tier() {
    return harness.gateway.tiers().currentTier("chat", "fast");
  }

  private String reason() {
    return harness.gateway.tiers().degraded().toString();
  }

  @Test
  void aHealedTargetBehindCachedAnswersIsProbedAndThePairIsBackAtT0WithinAMinute() throws Exception {
    start();
    for (int s = 0; s < PRELUDE.toSeconds(); s++) { // ten healthy minutes, a request a second
      ask();
      clock.advance(Duration.ofSeconds(1));
    }
    assertThat(tier()).isEqualTo(Tier.T0);

    int down = -1;
    for (int s = 0; s < OUTAGE.toSeconds(); s++) { // the outage: three requests a second, answered stale
      for (int i = 0; i < 3; i++) {
        ask();
      }
      clock.advance(Duration.ofSeconds(1));
      if (down < 0 && tier() == Tier.T2) {
        down = s;
      }
      if (down >= 0) {
        assertThat(tier()).as("a real outage stays down, %d s in: %s", s, reason()).isEqualTo(Tier.T2);
      }
    }
    assertThat(down).as("the outage steps the pair down to T2 promptly").isBetween(0, 30);
    CircuitBreaker breaker = harness.gateway.chain().breakers().of(FAST);
    assertThat(breaker.state()).isNotEqualTo(CircuitState.CLOSED);

    int seconds = 0; // the upstream has healed: a request a second, as before the outage
    while (tier() != Tier.T0 && seconds < 300) {
      ask();
      clock.advance(Duration.ofSeconds(1));
      seconds++;
    }
    assertThat(seconds).as("back at T0 within an open period and two healthy-for of the heal, not the 5 min burn: %s",
        reason()).isLessThanOrEqualTo(75);
    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    HttpResponse<String> full = ask();
    assertThat(full.headers().firstValue("x-levee-tier")).hasValue("T0");
  }
}
