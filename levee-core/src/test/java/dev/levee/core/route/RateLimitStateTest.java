package dev.levee.core.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Pacing decisions: is a request of N tokens covered before the reset, and when is the reset. */
class RateLimitStateTest {

  private final ManualClock clock = new ManualClock();
  private final RateLimitState state = new RateLimitState(clock);

  private static RateLimitReading reading(Long requests, Long tokens, Long input, Long output, Duration reset) {
    return new RateLimitReading(bucket(requests, reset), bucket(tokens, reset), bucket(input, reset),
        bucket(output, reset));
  }

  private static Optional<RateLimitReading.Bucket> bucket(Long remaining, Duration reset) {
    return remaining == null ? Optional.empty() : Optional.of(new RateLimitReading.Bucket(remaining, reset));
  }

  @Test
  void nothingKnownIsCovered() {
    assertThat(state.covers(1_000_000)).isTrue();
    assertThat(state.untilCovered(1_000_000)).isZero();
  }

  @Test
  void noRequestsLeftIsNotCoveredUntilTheReset() {
    state.observe(reading(0L, 50_000L, 40_000L, 10_000L, Duration.ofSeconds(30)));

    assertThat(state.covers(10)).isFalse();
    assertThat(state.untilCovered(10)).isEqualTo(Duration.ofSeconds(30));

    clock.advance(Duration.ofSeconds(29));
    assertThat(state.untilCovered(10)).isEqualTo(Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(1));
    assertThat(state.covers(10)).isTrue();
  }

  @Test
  void aRequestLargerThanTheTokensLeftIsNotCoveredASmallerOneIs() {
    state.observe(reading(10L, null, 1_000L, null, Duration.ofSeconds(12)));

    assertThat(state.covers(2_000)).isFalse();
    assertThat(state.untilCovered(2_000)).isEqualTo(Duration.ofSeconds(12));
    assertThat(state.covers(500)).isTrue();
  }

  @Test
  void theCombinedTokenBucketAndTheOutputBucketCountToo() {
    state.observe(reading(null, 100L, null, null, Duration.ofSeconds(5)));
    assertThat(state.covers(200)).isFalse();

    state.observe(reading(null, 100_000L, null, 0L, Duration.ofSeconds(7)));
    assertThat(state.covers(200)).isFalse();
    assertThat(state.untilCovered(200)).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void theWaitIsTheLatestResetAmongTheBucketsThatFallShort() {
    state.observe(new RateLimitReading(bucket(0L, Duration.ofSeconds(3)), Optional.empty(),
        bucket(0L, Duration.ofSeconds(40)), bucket(5_000L, Duration.ofSeconds(90))));

    assertThat(state.untilCovered(1)).isEqualTo(Duration.ofSeconds(40));
  }

  @Test
  void reservationsSpendTheRemainingCountsBetweenAnswers() {
    state.observe(reading(2L, null, 3_000L, null, Duration.ofSeconds(60)));

    assertThat(state.tryReserve(1_000)).isTrue();
    assertThat(state.tryReserve(1_000)).isTrue();
    assertThat(state.tryReserve(1_000)).isFalse(); // no request left, though 1,000 tokens are
    assertThat(state.snapshot().requests()).contains(new RateLimitReading.Bucket(0, Duration.ofSeconds(60)));
    assertThat(state.snapshot().inputTokens()).contains(new RateLimitReading.Bucket(1_000, Duration.ofSeconds(60)));
  }

  @Test
  void aRetryAfterEmptiesTheRequestsBucketForItsWait() {
    state.observe(reading(100L, null, null, null, Duration.ofSeconds(2)));

    state.observeRetryAfter(Duration.ofSeconds(9));

    assertThat(state.untilCovered(1)).isEqualTo(Duration.ofSeconds(9));
    clock.advance(Duration.ofSeconds(9));
    assertThat(state.covers(1)).isTrue();
  }

  @Test
  void aLaterAnswerReplacesWhatAnEarlierOneSaid() {
    state.observe(reading(0L, null, null, null, Duration.ofSeconds(30)));
    state.observe(reading(5L, null, null, null, Duration.ofSeconds(30)));

    assertThat(state.covers(1)).isTrue();
  }

  @Test
  void targetsArePacedSeparately() {
    RateLimits limits = new RateLimits(clock);
    Target limited = new Target("anthropic", "claude-opus-4-6");
    Target other = new Target("anthropic", "claude-sonnet-4-6");

    limits.observe(limited, reading(0L, null, null, null, Duration.ofSeconds(10)));
    limits.observe(other, RateLimitReading.NONE);

    assertThat(limits.covers(limited, 1)).isFalse();
    assertThat(limits.untilCovered(limited, 1)).isEqualTo(Duration.ofSeconds(10));
    assertThat(limits.covers(other, 1)).isTrue();
    assertThat(limits.tryReserve(other, 1)).isTrue();
  }

  @Test
  void a429WithRetryAfterPacesItsTargetOneWithoutDoesNot() {
    RateLimits limits = new RateLimits(clock);
    Target target = new Target("anthropic", "claude-opus-4-6");

    limits.onFailure(target, new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error", "slow down",
        Optional.of(Duration.ofSeconds(4)), Optional.empty()), Duration.ZERO);
    assertThat(limits.untilCovered(target, 1)).isEqualTo(Duration.ofSeconds(4));

    clock.advance(Duration.ofSeconds(4));
    limits.onFailure(target, Failure.of(FailureKind.SPEND_LIMIT, 429, "rate_limit_error", "spend limit"), Duration.ZERO);
    limits.onFailure(target, Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded"), Duration.ZERO);
    assertThat(limits.covers(target, 1)).isTrue();
  }
}
