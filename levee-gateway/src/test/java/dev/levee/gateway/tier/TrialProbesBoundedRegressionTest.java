package dev.levee.gateway.tier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Gate;
import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Review: past {@value TrialProbes#MAX_CLAIMS} targets, every claim of a trial probe scanned the
 * whole table for expired claims and kept every live one, so many client-chosen targets whose
 * circuits were ready for a trial within one {@code evaluate-every} grew the table (and each
 * claim's scan) without bound. The claims are a bounded cache now.
 */
class TrialProbesBoundedRegressionTest {

  private static final Duration EVERY = Duration.ofSeconds(5);

  private final ManualClock clock = new ManualClock();
  private final TrialProbes probes = new TrialProbes(clock, EVERY);
  private final Function<Target, Gate> trialReady = t -> new Gate() {
    @Override
    public CircuitBreaker.Verdict tryAcquire() {
      throw new UnsupportedOperationException("the probe only reads the circuit");
    }

    @Override
    public CircuitState state() {
      return CircuitState.OPEN;
    }

    @Override
    public Duration openRemaining() {
      return Duration.ZERO;
    }

    @Override
    public boolean awaitingTrial() {
      return false;
    }
  };

  @Test
  void fiveThousandLiveClaimsKeepAtMostTheBound() {
    for (int i = 0; i < 5 * TrialProbes.MAX_CLAIMS; i++) { // all within one evaluate-every: all live
      assertThat(probes.probe(trialReady, List.of(Target.parse("emu/invented-" + i)))).isTrue();
    }

    assertThat(probes.claimsHeld()).as("old: 5,000").isLessThanOrEqualTo(TrialProbes.MAX_CLAIMS);
  }

  @Test
  void aClaimSpacesAnEvaluateEveryAndIsThenDropped() {
    Target primary = Target.parse("emu/primary");
    assertThat(probes.probe(trialReady, List.of(primary))).isTrue();
    clock.advance(EVERY.minusNanos(1));
    assertThat(probes.probe(trialReady, List.of(primary))).isFalse();
    clock.advance(Duration.ofNanos(1));
    assertThat(probes.probe(trialReady, List.of(primary))).isTrue();

    clock.advance(EVERY.multipliedBy(3));
    assertThat(probes.claimsHeld()).as("no longer spacing anything: dropped").isZero();
  }
}
