package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.Ticker;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** The local copy of shared values: refreshed ahead in the background, never resurrected after an invalidation. */
class SharedViewTest {

  @AutoClose
  private final RedisFixture redis = new RedisFixture();
  private final AtomicLong nanos = new AtomicLong();
  private final Ticker ticker = nanos::get;

  @Test
  void anAgeingCopyIsServedWhileOneBackgroundReadReplacesIt() throws Exception {
    try (RedisLink link = new RedisLink(redis.config, ticker)) {
      SharedView<String> view = new SharedView<>(link, ticker);
      assertThat(view.get("k", k -> Optional.of("v1"))).hasValue("v1");
      nanos.addAndGet(30_000_000); // past half the 50 ms view TTL, not past the TTL

      CountDownLatch release = new CountDownLatch(1);
      assertThat(view.get("k", blockingUntil(release, "v2"))).as("served at once, not waiting on the read")
          .hasValue("v1");
      release.countDown();

      assertThat(RedisFixture.eventually(java.time.Duration.ofSeconds(5),
          () -> view.get("k", k -> Optional.of("unused")).equals(Optional.of("v2")))).isTrue();
    }
  }

  @Test
  void aBackgroundReadThatStartedBeforeAnInvalidationIsDropped() throws Exception {
    try (RedisLink link = new RedisLink(redis.config, ticker)) {
      SharedView<String> view = new SharedView<>(link, ticker);
      view.get("k", k -> Optional.of("old"));
      nanos.addAndGet(30_000_000);
      CountDownLatch release = new CountDownLatch(1);
      view.get("k", blockingUntil(release, "stale"));
      assertThat(view.refreshesInFlight()).isEqualTo(1);

      view.invalidate("k"); // an event arrived while the read was in flight
      release.countDown();
      assertThat(RedisFixture.eventually(java.time.Duration.ofSeconds(5), () -> view.refreshesInFlight() == 0)).isTrue();

      assertThat(view.get("k", k -> Optional.of("fresh"))).hasValue("fresh");
    }
  }

  private static Function<String, Optional<String>> blockingUntil(CountDownLatch release, String value) {
    return k -> {
      try {
        release.await(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Optional.of(value);
    };
  }
}
