package dev.levee.gateway.e2e;

import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.GatewayClock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.SplittableRandom;

/**
 * An emulator and a gateway on one {@link ManualClock}: the emulator's incidents and waits, and
 * the gateway's breakers, windows, retries and tier evaluations, all move when the test advances
 * the clock, never on their own. Wall-clock time (HTTP dates, webhook timestamps) stays the
 * system's.
 */
final class VirtualTime {

  private VirtualTime() {}

  /** Emulator options on {@code clock}: no time to first token, no delay between deltas. */
  static EmulatorOptions.Builder emulator(ManualClock clock) {
    return EmulatorOptions.builder().ticker(clock).sleeper(clock).timeToFirstToken(Duration.ZERO)
        .deltaDelay(Duration.ZERO);
  }

  /** A gateway clock whose ticker, sleeper and scheduler are {@code clock}; its jitter draws from {@code seed}. */
  static GatewayClock gateway(ManualClock clock, long seed) {
    return new GatewayClock(clock, clock, InstantSource.system(), new SplittableRandom(seed), clock);
  }

  /**
   * An incident: {@code model} answers 529 from {@code from} (inclusive) until {@code to}
   * (exclusive), both since the emulator started; every other model, and {@code model} outside
   * it, answers normally.
   */
  static Scenario overloaded(String model, Duration from, Duration to) {
    return Scenario.builder().phase(Scenario.Phase.builder().model(model).from(from).to(to).status(529).build())
        .build();
  }

  /** An emulator on {@code clock} playing {@code scenario}, and a gateway with {@code yaml} on {@code clock}. */
  static Harness start(ManualClock clock, long seed, Scenario scenario, String yaml) throws Exception {
    return Harness.start(emulator(clock).scenario(scenario).build(), yaml, "", gateway(clock, seed));
  }
}
