package dev.levee.gateway;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.time.Scheduler;
import dev.levee.core.time.Sleeper;
import dev.levee.core.time.Ticker;
import java.time.InstantSource;
import java.util.random.RandomGenerator;

/**
 * Where the gateway's time, timers and randomness come from. Production uses {@link #system()};
 * tests pass a {@link dev.levee.core.time.ManualClock} (ticker, sleeper and scheduler at once) to
 * drive breakers, windows, tier evaluation, stream watchdogs and cache TTLs on virtual time.
 *
 * @param ticker monotonic time for every policy
 * @param sleeper backoff and retry-after waits
 * @param wall wall-clock time (HTTP dates in {@code retry-after}, webhook timestamps, an undated alias's
 *     {@code created_at})
 * @param random jitter
 * @param scheduler every timer: tier evaluation and the stream and attempt watchdogs
 */
public record GatewayClock(Ticker ticker, Sleeper sleeper, InstantSource wall, RandomGenerator random,
    Scheduler scheduler) {

  public static GatewayClock system() {
    return new GatewayClock(SystemClock.ticker(), SystemClock.sleeper(), InstantSource.system(),
        java.util.concurrent.ThreadLocalRandom.current(), SystemClock.scheduler());
  }
}
