package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.Permit;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Given breakers and tiers on a manual clock, queued work pauses while every target of its alias
 * is OPEN or its feature is at T2/T3, and resumes by itself once an open period has passed.
 */
class PauseGateTest {

  private final ManualClock clock = new ManualClock();
  private final GatewayConfig config;
  private final Aliases routes;
  private final Breakers breakers = new Breakers(CircuitBreakerConfig.of(2, Duration.ofSeconds(60),
      Duration.ofSeconds(30)), clock, t -> { });
  private final TierBoard tiers;
  private final PauseGate gate;

  PauseGateTest() throws Exception {
    config = new ConfigLoader().parse("""
        upstreams:
          emu: { url: "http://127.0.0.1:9" }
        models:
          smart: { chain: [emu/a, emu/b] }
        features:
          nightly: { fail-mode: open }
        """, "test.yaml");
    routes = new Aliases(config);
    tiers = new TierBoard(config, clock, clock, () -> Instant.EPOCH, (delay, task) -> () -> { });
    gate = new PauseGate(routes, config.models().keySet(), breakers, tiers, List.of("default", "nightly"));
  }

  @AfterEach
  void close() {
    tiers.close();
  }

  private void trip(Target target) {
    CircuitBreaker breaker = breakers.of(target);
    for (int i = 0; i < 2; i++) {
      ((CircuitBreaker.Admitted) breaker.tryAcquire()).permit().failure();
    }
  }

  @Test
  void anAliasPausesOnlyWhileEveryTargetIsOpenAndResumesAfterTheOpenPeriod() {
    trip(new Target("emu", "a"));
    assertThat(gate.paused().aliases()).doesNotContain("smart"); // b still answers (model "a" asked directly waits)

    trip(new Target("emu", "b"));
    assertThat(gate.paused().aliases()).contains("smart");

    clock.advance(Duration.ofSeconds(30)); // a job may now be the trial call
    assertThat(gate.paused().aliases()).isEmpty();
  }

  /**
   * Newcomer trial (session 9): once the open period had passed, every worker claimed a job; one
   * became the half-open trial and the rest of the backlog cycled through "circuit half-open,
   * trial in flight". Work now waits while the trial is in flight, and the trial decides. Late
   * trial: while the primary's trial is in flight the work waits for it too, though a later target
   * could take a trial (or answer): it is not drained onto the fallback while the primary is tested.
   */
  @Test
  void anAliasPausesWhileItsHalfOpenTrialIsInFlightAndResumesOnceTheTrialSettles() {
    Target a = new Target("emu", "a");
    Target b = new Target("emu", "b");
    trip(a);
    trip(b);
    clock.advance(Duration.ofSeconds(30));
    assertThat(gate.paused().trials()).as("the primary's trial first").filteredOn(t -> t.aliases().contains("smart"))
        .singleElement().satisfies(trial -> assertThat(trial.target()).isEqualTo(a));
    Permit trialA = ((CircuitBreaker.Admitted) breakers.of(a).tryAcquire()).permit();

    assertThat(gate.paused().aliases()).as("the primary is on trial: its verdict decides").contains("smart");
    assertThat(gate.paused().why("default", "smart")).hasValue("held: the primary of alias smart is being tested "
        + "(emu/a: circuit half-open, trial in flight); its work waits for the trial's verdict rather than go to a "
        + "fallback meanwhile");

    trialA.failure(); // a's trial failed: a waits out a fresh open period, b may take a trial
    assertThat(gate.paused().trials()).filteredOn(t -> t.aliases().contains("smart"))
        .singleElement().satisfies(trial -> assertThat(trial.target()).isEqualTo(b));
    Permit trialB = ((CircuitBreaker.Admitted) breakers.of(b).tryAcquire()).permit();

    PauseGate.Paused paused = gate.paused();

    assertThat(paused.aliases()).contains("smart");
    assertThat(paused.why("default", "smart")).hasValue("held: no target of alias smart can answer now "
        + "(emu/a: circuit open, 30 s left; emu/b: circuit half-open, trial in flight)");

    trialB.success(); // the trial came back: the next call may be the next trial (close-after: 2)
    assertThat(gate.paused().aliases()).doesNotContain("smart");
  }

  @Test
  void aPassThroughModelPausesOnItsOwnBreaker() {
    trip(new Target("emu", "claude-x"));

    assertThat(gate.paused().aliases()).containsExactly("claude-x");
  }

  @Test
  void aFeatureAtT2OrT3Pauses() {
    tiers.controller("nightly").force(Tier.T2, Duration.ofMinutes(5));
    assertThat(gate.paused().features()).containsExactly("nightly");

    tiers.controller("nightly").force(Tier.T1, Duration.ofMinutes(5));
    assertThat(gate.paused()).isEqualTo(PauseGate.Paused.NONE);
  }

  @Test
  void anAliasPausesWhileEveryTargetIsOpenOrCoolingAndResumesWhenTheCooldownEnds() {
    tiers.cooldowns().coolFor(new Target("emu", "a"), Duration.ofSeconds(20));
    assertThat(gate.paused().aliases()).doesNotContain("smart");

    trip(new Target("emu", "b")); // b open, a cooling: nothing can answer now
    assertThat(gate.paused().aliases()).contains("smart");

    clock.advance(Duration.ofSeconds(20)); // a's cooldown is over
    assertThat(gate.paused().aliases()).doesNotContain("smart");
  }

  @Test
  void aQueueingFeatureAlsoPausesAtT1() {
    PauseGate queueing = new PauseGate(routes, config.models().keySet(), breakers, tiers, List.of("default", "nightly"),
        "nightly"::equals);

    tiers.controller("nightly").force(Tier.T1, Duration.ofMinutes(5));
    assertThat(queueing.paused().features()).containsExactly("nightly");

    tiers.controller("nightly").clearForce();
    assertThat(queueing.paused()).isEqualTo(PauseGate.Paused.NONE);
  }
}
