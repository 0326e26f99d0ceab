package dev.levee.gateway.cluster;

import static dev.levee.gateway.cluster.RedisFixture.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.time.SystemClock;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** Rate-limit cooldowns shared by three replicas, with the max rule. */
class SharedCooldownsTest {

  @AutoClose
  private final RedisFixture redis = new RedisFixture();

  @Test
  void aCooldownStartedOnOneReplicaHoldsOnAllAndAShorterWaitNeverShortensIt() throws Exception {
    SharedCooldowns a = redis.replica(SystemClock.ticker()).cooldowns();
    SharedCooldowns b = redis.replica(SystemClock.ticker()).cooldowns();
    SharedCooldowns c = redis.replica(SystemClock.ticker()).cooldowns();
    assertThat(c.remaining("emu/opus")).isZero();

    a.coolDown("emu/opus", Duration.ofSeconds(60));
    b.coolDown("emu/opus", Duration.ofSeconds(2)); // a later, shorter retry-after

    assertThat(eventually(Duration.ofSeconds(5), () -> c.remaining("emu/opus").compareTo(Duration.ofSeconds(50)) > 0))
        .as("replica c sees replica a's 60 s").isTrue();
    assertThat(b.remaining("emu/opus")).isGreaterThan(Duration.ofSeconds(50));
    assertThat(c.remaining("emu/haiku")).as("only the target that was limited").isZero();
  }

  @Test
  void aLongerWaitExtendsTheCooldownEverywhere() throws Exception {
    SharedCooldowns a = redis.replica(SystemClock.ticker()).cooldowns();
    SharedCooldowns b = redis.replica(SystemClock.ticker()).cooldowns();
    a.coolDown("emu/opus", Duration.ofSeconds(5));
    assertThat(eventually(Duration.ofSeconds(5), () -> b.remaining("emu/opus").isPositive())).isTrue();

    b.coolDown("emu/opus", Duration.ofSeconds(120));

    assertThat(eventually(Duration.ofSeconds(5), () -> a.remaining("emu/opus").compareTo(Duration.ofSeconds(100)) > 0))
        .isTrue();
  }
}
