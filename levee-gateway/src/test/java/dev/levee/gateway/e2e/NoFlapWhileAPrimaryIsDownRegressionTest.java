package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial, "while one target is down, an alias's tier flaps T0 <-> T1": alias {@code smart}
 * = [sick primary, healthy fallback]; the primary answered 529 for 100 s. At T1 the primary is
 * skipped, so the windows the pair reads looked healthy; after {@code healthy-for} the pair stepped
 * up to T0, met the failing primary (its circuit's trial) and stepped down again — clients all got
 * 200s through the fallback, but {@code /health}, {@code levee_tier} and the webhook flapped ({@code
 * "… one step up, T1 -> T0; held: healthy for 4 s of 20 s"}).
 *
 * <p>Now a step up waits while a circuit of the tier above is OPEN and no trial has tested it
 * (its open period runs, or it is over and the pair's next request is the trial): the pair holds
 * T1 for the whole outage, its requests probe the primary once an open period, and the first
 * successful trial after the heal lets it step up.
 *
 * <p>One long-lived gateway and emulator on one manual clock; the trial's policy (two retries,
 * the default breaker: open 30 s, two trials to close) and tiers (evaluated every 2 s, healthy for
 * 20 s).
 */
class NoFlapWhileAPrimaryIsDownRegressionTest {

  private static final Target SICK = new Target("emu", "claude-sick");
  private static final Duration PRELUDE = Duration.ofSeconds(60);
  private static final Duration OUTAGE = Duration.ofSeconds(100);

  private final ManualClock clock = new ManualClock();
  @AutoClose
  private Harness harness;
  private int asked;

  private void start() throws Exception {
    harness = VirtualTime.start(clock, 3, VirtualTime.overloaded("claude-sick", PRELUDE, PRELUDE.plus(OUTAGE)), """
        policy:
          retry: { max-retries: 2, base-delay: 200ms, max-delay: 2s }
          breaker: default
          retry-budget: { max: 50, ratio: 0.25 }
        models:
          smart: { chain: [emu/claude-sick, emu/claude-ok] }
        features:
          chat: { priority: critical }
        tiers:
          evaluate-every: 2s
          healthy-for: 20s
        """);
  }

  /** A second of traffic: two requests, each answered 200 (by the primary or the fallback). */
  private void second() throws Exception {
    for (int i = 0; i < 2; i++) {
      HttpResponse<String> r = harness.post("/v1/messages", ClientRequests.message("smart", 30, "q " + (asked++ % 50)),
          ClientRequests.forFeature("chat"));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }
    clock.advance(Duration.ofSeconds(1));
  }

  private Tier tier() {
    return harness.gateway.tiers().currentTier("chat", "smart");
  }

  @Test
  void thePairHoldsT1ForTheWholeOutageAndStepsUpOnceATrialPasses() throws Exception {
    start();
    for (int s = 0; s < PRELUDE.toSeconds(); s++) {
      second();
    }
    assertThat(tier()).isEqualTo(Tier.T0);

    List<String> tiers = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    for (int s = 0; s < OUTAGE.toSeconds(); s++) {
      second();
      tiers.add(tier().name());
      reasons.add(s + " s: " + reason());
    }
    int firstT1 = tiers.indexOf("T1");
    assertThat(firstT1).as("the outage steps the pair down at once: %s", tiers).isBetween(0, 5);
    assertThat(tiers.subList(firstT1, tiers.size())).as("no step up while the primary is down: %s", reasons)
        .containsOnly("T1");
    assertThat(reason()).as("last_reason says what holds the step up")
        .contains("step up to T0 held: emu/claude-sick: circuit open");

    int seconds = 0; // the primary heals
    while (tier() != Tier.T0 && seconds < 200) {
      second();
      seconds++;
    }
    assertThat(seconds).as("back at T0 once a trial passes: at most an open period after the heal")
        .isLessThanOrEqualTo(40);
    for (int s = 0; s < 60; s++) {
      second();
      assertThat(tier()).as("after the heal, %d s", seconds + s).isEqualTo(Tier.T0);
    }
    assertThat(harness.gateway.chain().breakers().of(SICK).state()).isEqualTo(CircuitState.CLOSED);
  }

  /** The pair's {@code last_reason}, as {@code /health} shows it. */
  private String reason() {
    for (var feature : harness.gateway.tiers().status()) {
      for (var alias : feature.get("aliases")) {
        if (feature.get("feature").asText().equals("chat") && alias.get("alias").asText().equals("smart")) {
          return alias.path("tier").asText() + " " + alias.path("last_reason").asText();
        }
      }
    }
    return "";
  }
}
