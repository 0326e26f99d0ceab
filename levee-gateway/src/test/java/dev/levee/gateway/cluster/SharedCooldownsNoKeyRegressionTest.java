package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.Ticker;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Phase 2 found it: a target that never cooled read as cooling for the time the PTTL read took
 * (PTTL answers -2 for a missing key, and the time left was measured from before the read), so the
 * first request of a replica skipped a healthy target. A missing key is no cooldown, however long
 * the read takes.
 */
class SharedCooldownsNoKeyRegressionTest {

  @AutoClose
  private final RedisFixture redis = new RedisFixture();

  @Test
  void aTargetThatNeverCooledHasNoCooldownEvenWhenTheReadIsSlow() throws Exception {
    AtomicLong nanos = new AtomicLong();
    Ticker slow = () -> nanos.addAndGet(30_000_000); // every reading of the clock is 30 ms later
    SharedCooldowns cooldowns = redis.replica(slow).cooldowns();

    assertThat(cooldowns.remaining("emu/never-limited")).isZero();
  }
}
