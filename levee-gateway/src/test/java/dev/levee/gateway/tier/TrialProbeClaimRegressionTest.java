package dev.levee.gateway.tier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Gate;
import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A target's trial probe is claimed by one request an {@code evaluate-every}, however many ask at
 * once. Before, the claim read the clock before reading the circuits: a request held up in
 * between (a shared breaker's state read from Redis) claimed with a time an {@code evaluate-every}
 * old beside a request claiming now, so both went to the open circuit; and past 1,000 targets a
 * claim cleared the whole table, a live claim with it.
 */
class TrialProbeClaimRegressionTest {

  private static final Duration EVERY = Duration.ofSeconds(5);
  private static final Target PRIMARY = Target.parse("emu/primary");

  private final ManualClock clock = new ManualClock();
  private final TrialProbes probes = new TrialProbes(clock, EVERY);

  /** A circuit whose open period is over: its trial may be admitted now. */
  private static class TrialReady implements Gate {
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
  }

  @Test
  void sixteenRequestsAtOnceClaimTheOneProbeOnce() throws Exception {
    Function<Target, Gate> gates = t -> new TrialReady();
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Boolean>> claims = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
      for (int i = 0; i < 16; i++) {
        claims.add(pool.submit(() -> {
          start.await();
          return probes.probe(gates, List.of(PRIMARY));
        }));
      }
      start.countDown();
      int won = 0;
      for (Future<Boolean> claim : claims) {
        won += claim.get(10, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertThat(won).isEqualTo(1);
    }
  }

  @Test
  void aRequestHeldUpBetweenReadingTheClockAndClaimingCannotClaimBesideANewerOne() throws Exception {
    CountDownLatch reading = new CountDownLatch(1); // the held-up request is reading the circuit
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean holdNext = new AtomicBoolean(true);
    Function<Target, Gate> gates = t -> new TrialReady() {
      @Override
      public CircuitState state() {
        if (holdNext.compareAndSet(true, false)) {
          reading.countDown();
          try {
            release.await(); // a slow read of the shared circuit
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return CircuitState.OPEN;
      }
    };
    try (ExecutorService pool = Executors.newSingleThreadExecutor()) {
      Future<Boolean> heldUp = pool.submit(() -> probes.probe(gates, List.of(PRIMARY)));
      assertThat(reading.await(10, TimeUnit.SECONDS)).isTrue();
      clock.advance(EVERY); // the read takes an evaluate-every
      release.countDown();
      assertThat(heldUp.get(10, TimeUnit.SECONDS)).as("the held-up request claims the probe").isTrue();
    }

    assertThat(probes.probe(gates, List.of(PRIMARY)))
        .as("a request at the same moment finds it claimed: one trial probe, not two").isFalse();
    clock.advance(EVERY);
    assertThat(probes.probe(gates, List.of(PRIMARY))).as("the next evaluate-every has its own").isTrue();
  }

  @Test
  void pastTheBoundOnlyExpiredClaimsAreDroppedNeverALiveOne() {
    Function<Target, Gate> gates = t -> new TrialReady();
    for (int i = 0; i < TrialProbes.MAX_CLAIMS; i++) { // client-chosen targets' claims, expired by now
      assertThat(probes.probe(gates, List.of(Target.parse("emu/junk-" + i)))).isTrue();
    }
    clock.advance(EVERY);
    assertThat(probes.probe(gates, List.of(PRIMARY))).isTrue();

    assertThat(probes.probe(gates, List.of(Target.parse("emu/another")))).as("past the bound (1,001 claims): a sweep").isTrue();

    assertThat(probes.probe(gates, List.of(PRIMARY))).as("the primary's claim survived the sweep").isFalse();
  }
}
