package dev.levee.gateway;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.time.Sleeper;
import dev.levee.core.time.Ticker;
import java.time.InstantSource;
import java.util.random.RandomGenerator;

/**
 * Where the gateway's time and randomness come from. Production uses {@link #system()}; tests
 * pass a {@link dev.levee.core.time.ManualClock} to drive breakers, windows, tiers and cache TTLs
 * on virtual time.
 *
 * @param ticker monotonic time for every policy
 * @param sleeper backoff and retry-after waits
 * @param wall wall-clock time (HTTP dates in {@code retry-after}, webhook timestamps)
 * @param random jitter
 * @param scheduleTiers whether tiers are evaluated on a real timer (tests on virtual time call
 *     {@code TierBoard#evaluateAll()} themselves)
 */
public record GatewayClock(Ticker ticker, Sleeper sleeper, InstantSource wall, RandomGenerator random,
    boolean scheduleTiers) {

  public static GatewayClock system() {
    return new GatewayClock(SystemClock.ticker(), SystemClock.sleeper(), InstantSource.system(),
        java.util.concurrent.ThreadLocalRandom.current(), true);
  }
}
