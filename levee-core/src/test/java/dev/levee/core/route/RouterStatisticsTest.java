package dev.levee.core.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Router statistics on a fake clock: the EMA, its ageing, and the sliding p95. */
class RouterStatisticsTest {

  private static final Target SONNET = new Target("anthropic", "claude-sonnet-4-6");
  private static final Failure OVERLOADED = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded");

  private final ManualClock clock = new ManualClock();
  private final RouterStatistics statistics = new RouterStatistics(
      StatisticsConfig.DEFAULT.withTypicalLatency(Map.of(SONNET.model(), Duration.ofMillis(1200))), clock);

  @Test
  void aTargetNeverCalledReadsFullSuccessAndItsTypicalLatency() {
    TargetReading reading = statistics.read(SONNET);

    assertThat(reading.success()).isEqualTo(1.0);
    assertThat(reading.p95()).isEqualTo(Duration.ofMillis(1200));
    assertThat(reading.measured()).isFalse();
    assertThat(statistics.read(new Target("anthropic", "other")).p95()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void eachOutcomeMovesTheAverageATenthOfTheWay() {
    statistics.onFailure(SONNET, OVERLOADED, Duration.ofMillis(10));
    assertThat(statistics.read(SONNET).success()).isCloseTo(1.0 - 0.1, within(1e-12));

    statistics.onSuccess(SONNET, Duration.ofMillis(900));
    assertThat(statistics.read(SONNET).success()).isCloseTo(0.9 + 0.1 * (1 - 0.9), within(1e-12));
    assertThat(statistics.read(SONNET).outcomes()).isEqualTo(2);
  }

  @Test
  void theClientsOwnErrorsAndCancellationsSayNothingOfTheTarget() {
    statistics.onFailure(SONNET, Failure.of(FailureKind.CLIENT_ERROR, 400, "invalid_request_error", "bad"), Duration.ZERO);
    statistics.onFailure(SONNET, Failure.of(FailureKind.CANCELLED, 0, "cancelled", "client went away"), Duration.ZERO);

    assertThat(statistics.read(SONNET).success()).isEqualTo(1.0);
    assertThat(statistics.read(SONNET).outcomes()).isZero();
  }

  @Test
  void failuresAreForgottenWithAHalfLife() {
    for (int i = 0; i < 20; i++) {
      statistics.onFailure(SONNET, OVERLOADED, Duration.ofMillis(10));
    }
    double afterOutage = Math.pow(0.9, 20);
    assertThat(statistics.read(SONNET).success()).isCloseTo(afterOutage, within(1e-12));

    clock.advance(StatisticsConfig.DEFAULT.halfLife());
    assertThat(statistics.read(SONNET).success()).isCloseTo(1 - (1 - afterOutage) / 2, within(1e-9));

    clock.advance(Duration.ofMinutes(50)); // an hour after the outage: six half-lives
    assertThat(statistics.read(SONNET).success()).isCloseTo(1 - (1 - afterOutage) / 64, within(1e-9))
        .isGreaterThan(0.98);
  }

  @Test
  void aNewOutcomeStartsFromTheAgedValue() {
    statistics.onFailure(SONNET, OVERLOADED, Duration.ZERO); // 0.9
    clock.advance(StatisticsConfig.DEFAULT.halfLife()); // aged to 0.95

    statistics.onFailure(SONNET, OVERLOADED, Duration.ZERO);

    assertThat(statistics.read(SONNET).success()).isCloseTo(0.95 * 0.9, within(1e-12));
  }

  @Test
  void p95IsAPercentileOfSuccessesNotAnAverage() {
    for (int ms = 1; ms <= 100; ms++) {
      statistics.onSuccess(SONNET, Duration.ofMillis(ms * 10L)); // 10 ms .. 1,000 ms, mean 505
    }
    statistics.onFailure(SONNET, OVERLOADED, Duration.ofSeconds(60)); // failures add no latency

    TargetReading reading = statistics.read(SONNET);
    assertThat(reading.measured()).isTrue();
    assertThat(reading.p95().toMillis()).isCloseTo(950, within(10L)); // HdrHistogram: within 1 %
  }

  @Test
  void theLatencyWindowSlides() {
    for (int i = 0; i < 50; i++) {
      statistics.onSuccess(SONNET, Duration.ofMillis(4000)); // a slow spell
    }
    clock.advance(Duration.ofMinutes(3));
    for (int i = 0; i < 50; i++) {
      statistics.onSuccess(SONNET, Duration.ofMillis(300));
    }
    assertThat(statistics.read(SONNET).p95().toMillis()).isCloseTo(4000, within(40L));

    clock.advance(Duration.ofMinutes(3)); // the slow spell has slid out of the 5-minute window
    assertThat(statistics.read(SONNET).p95().toMillis()).isCloseTo(300, within(3L));

    clock.advance(Duration.ofMinutes(5)); // nothing left: the typical latency again
    assertThat(statistics.read(SONNET).p95()).isEqualTo(Duration.ofMillis(1200));
    assertThat(statistics.read(SONNET).measured()).isFalse();
  }

  @Test
  void healthReadsEveryMeasuredTargetByIdAndNoOther() {
    Target opus = new Target("anthropic", "claude-opus-4-6");
    statistics.onSuccess(SONNET, Duration.ofMillis(800));
    statistics.onFailure(opus, OVERLOADED, Duration.ZERO);
    statistics.read(new Target("anthropic", "never-called"));

    assertThat(statistics.readings()).containsOnlyKeys("anthropic/claude-opus-4-6", "anthropic/claude-sonnet-4-6");
    assertThat(statistics.readings().get("anthropic/claude-opus-4-6").success()).isCloseTo(0.9, within(1e-12));
    assertThat(statistics.readings().get("anthropic/claude-sonnet-4-6").p95().toMillis()).isCloseTo(800, within(8L));
  }

  @Test
  void aSharingSeamChangesWhatTheRouterReadsButNotTheReplicasOwnReadings() {
    statistics.onFailure(SONNET, OVERLOADED, Duration.ofMillis(10));
    statistics.shareThrough((target, local) ->
        new TargetReading(local.success() / 2, local.p95(), local.measured(), local.outcomes()));

    assertThat(statistics.read(SONNET).success()).isCloseTo(0.45, within(1e-12));
    assertThat(statistics.readLocal(SONNET).success()).isCloseTo(0.9, within(1e-12));
    assertThat(statistics.readings().get(SONNET.id()).success()).isCloseTo(0.9, within(1e-12));
  }
}
