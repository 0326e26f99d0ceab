package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Regression: a target that was never limited read as cooling for as long as the Redis read took
 * (PTTL's -2 for a missing key was added to the time of the read, which is later than "now").
 * Seen as a flaky {@code SharedCooldownsTest} on a loaded machine.
 */
class SlowReadCooldownRegressionTest {

  @AutoClose
  private final RedisFixture redis = new RedisFixture();

  @Test
  void aTargetNeverLimitedHasNoCooldownHoweverSlowTheRead() throws Exception {
    AtomicLong nanos = new AtomicLong();
    Ticker slow = () -> nanos.addAndGet(Duration.ofMillis(40).toNanos()); // every reading 40 ms later
    SharedCooldowns cooldowns = redis.replica(slow).cooldowns();

    assertThat(cooldowns.remaining("emu/never-limited")).isZero();
  }
}
