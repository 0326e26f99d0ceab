package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.route.RouterStatistics;
import dev.levee.core.route.StatisticsConfig;
import dev.levee.core.time.ManualClock;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The soak ({@code levee-bench/run Soak}): a client naming a new model every few seconds grew the
 * gateway's heap after a full GC by ~145 KiB a name, up to the bound of the tables that keep
 * client-named targets ({@link TargetStats#MAX_OTHERS} and {@link RouterStatistics#MAX_TARGETS}, 1,000
 * each): ~140 MiB of the 256 MiB heap the launcher is measured with, before the cache's 64 MiB.
 * Each name's SLI window held 12 HdrHistograms of ~9 KiB and its router statistics 6 of ~7 KiB,
 * made up front whether or not a latency ever came. Now a slice's histogram is made by its first
 * latency and dropped when the slice is reused, so a name costs what it was used for: a name
 * called once holds three histograms, one never answered none.
 *
 * <p>Measured as the bytes this thread allocates while the two tables take the names in (every
 * table does its upkeep on the calling thread): what the old code allocated per name is what it
 * kept, so the figure is deterministic where a heap reading after a GC is not.
 */
class InventedModelNamesHeapRegressionTest {

  private static final Failure OVERLOADED = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded");
  private static final int NAMES = 1_000;

  private final ManualClock clock = new ManualClock();
  private final Target configured = new Target("emu", "claude-sonnet-4-5");
  private final TargetStats stats = new TargetStats(Set.of(configured), clock);
  private final RouterStatistics router = new RouterStatistics(StatisticsConfig.DEFAULT, clock, Set.of(configured));

  @Test
  void aThousandNamesEachAnsweredOnceTakeAFewMiBNotAHundredAndForty() {
    answer(new Target("emu", "claude-warm-up")); // classes loaded, tables' first buffers made

    long perName = perName(name -> answer(new Target("emu", "claude-invented-" + name)));

    assertThat(perName).as("bytes per name answered once (was ~148,000: 18 histograms)").isLessThan(32_000);
  }

  @Test
  void aNameThatNeverAnsweredHoldsNoHistogram() {
    fail(new Target("emu", "claude-warm-up"));

    long perName = perName(name -> fail(new Target("emu", "claude-down-" + name)));

    assertThat(perName).as("bytes per name that only failed (was ~148,000)").isLessThan(4_000);
  }

  @Test
  void aNameAnsweredAgainAndAgainStillReadsItsLatency() {
    Target busy = new Target("emu", "claude-busy");
    for (int i = 0; i < 30; i++) { // 30 answers over 75 s: slices reused, histograms dropped and made again
      stats.onSuccess(busy, Duration.ofMillis(100 + i));
      router.onSuccess(busy, Duration.ofMillis(100 + i));
      clock.advance(Duration.ofMillis(2_500));
    }

    assertThat(stats.snapshot(busy).p99Millis()).as("the last minute's slowest: 129 ms, at two digits").isBetween(125L, 130L);
    assertThat(router.read(busy).p95()).isBetween(Duration.ofMillis(125), Duration.ofMillis(130));
  }

  private void answer(Target target) {
    stats.onSuccess(target, Duration.ofMillis(800));
    router.onSuccess(target, Duration.ofMillis(800));
  }

  private void fail(Target target) {
    stats.onFailure(target, OVERLOADED, Duration.ofMillis(20));
    router.onFailure(target, OVERLOADED, Duration.ofMillis(20));
  }

  private static long perName(java.util.function.IntConsumer use) {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < NAMES; i++) {
      use.accept(i);
    }
    return (threads.getCurrentThreadAllocatedBytes() - before) / NAMES;
  }
}
