package dev.levee.core.cooldown;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Target;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Issue 10: a 429 with a stated wait cools its target; a later, shorter signal never shortens it. */
class RateLimitCooldownsTest {

  private static final Target PRIMARY = Target.parse("anthropic/claude-opus-4-6");
  private static final Target FALLBACK = Target.parse("anthropic/claude-haiku-4-5");
  private static final Duration MIN_ATTEMPT = Duration.ofMillis(100);
  private static final Duration MAX_WAIT = Duration.ofSeconds(60);

  private final ManualClock clock = new ManualClock();
  private final RateLimitCooldowns cooldowns = new RateLimitCooldowns(clock);

  private static Failure rateLimited(Duration retryAfter) {
    return new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error", "slow down", Optional.of(retryAfter),
        Optional.empty());
  }

  @Test
  void a429WithRetryAfterCoolsItsTargetUntilThen() {
    cooldowns.onFailure(PRIMARY, rateLimited(Duration.ofSeconds(30)), Duration.ZERO);

    assertThat(cooldowns.remaining(PRIMARY)).isEqualTo(Duration.ofSeconds(30));
    clock.advance(Duration.ofSeconds(29));
    assertThat(cooldowns.cooling(PRIMARY)).isTrue();
    clock.advance(Duration.ofSeconds(1));
    assertThat(cooldowns.cooling(PRIMARY)).isFalse();
    assertThat(cooldowns.cooling(FALLBACK)).isFalse();
  }

  @Test
  void aStragglingShorterSignalNeverShortensACooldownInForce() {
    cooldowns.onFailure(PRIMARY, rateLimited(Duration.ofSeconds(30)), Duration.ZERO);
    clock.advance(Duration.ofSeconds(5));

    Duration after = cooldowns.coolFor(PRIMARY, Duration.ofSeconds(1));

    assertThat(after).isEqualTo(Duration.ofSeconds(25));
    assertThat(cooldowns.coolFor(PRIMARY, Duration.ofSeconds(40))).isEqualTo(Duration.ofSeconds(40)); // a longer one extends
  }

  @Test
  void failuresWithoutAStatedWaitOrOfAnotherKindDoNotCool() {
    cooldowns.onFailure(PRIMARY, Failure.of(FailureKind.SPEND_LIMIT, 429, "rate_limit_error", "spend limit"), Duration.ZERO);
    cooldowns.onFailure(PRIMARY, Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "busy"), Duration.ZERO);
    cooldowns.onFailure(PRIMARY, rateLimited(Duration.ZERO), Duration.ZERO);

    assertThat(cooldowns.snapshot()).isEmpty();
  }

  @Test
  void aPlanSkipsCoolingTargetsAndKeepsTheOrderOfTheOthers() {
    cooldowns.coolFor(PRIMARY, Duration.ofSeconds(30));

    CooldownPlan plan = cooldowns.plan(List.of(PRIMARY, FALLBACK), Deadline.after(Duration.ofSeconds(60), clock),
        MIN_ATTEMPT, MAX_WAIT);

    assertThat(plan).isEqualTo(new CooldownPlan.Go(List.of(FALLBACK), Duration.ZERO, List.of(PRIMARY)));
  }

  @Test
  void whenEveryTargetCoolsTheRequestWaitsForTheFirstReadyIfTheDeadlineHoldsIt() {
    cooldowns.coolFor(PRIMARY, Duration.ofSeconds(10));
    cooldowns.coolFor(FALLBACK, Duration.ofSeconds(4));

    CooldownPlan plan = cooldowns.plan(List.of(PRIMARY, FALLBACK), Deadline.after(Duration.ofSeconds(30), clock),
        MIN_ATTEMPT, MAX_WAIT);

    assertThat(plan).isEqualTo(new CooldownPlan.Go(List.of(FALLBACK), Duration.ofSeconds(4), List.of(PRIMARY)));
  }

  @Test
  void whenTheWaitDoesNotFitTheDeadlineTheRequestIsRefusedWithTheRemainingTime() {
    cooldowns.coolFor(PRIMARY, Duration.ofSeconds(30));

    CooldownPlan plan = cooldowns.plan(List.of(PRIMARY), Deadline.after(Duration.ofSeconds(30), clock),
        MIN_ATTEMPT, MAX_WAIT);

    assertThat(plan).isEqualTo(new CooldownPlan.Refuse(PRIMARY, Duration.ofSeconds(30)));
  }

  @Test
  void aCooldownLongerThanTheLongestWaitSatOutIsRefusedThoughTheDeadlineHoldsIt() {
    cooldowns.coolFor(PRIMARY, Duration.ofSeconds(61));
    cooldowns.coolFor(FALLBACK, Duration.ofSeconds(90));

    CooldownPlan plan = cooldowns.plan(List.of(PRIMARY, FALLBACK), Deadline.after(Duration.ofMinutes(10), clock),
        MIN_ATTEMPT, MAX_WAIT);

    assertThat(plan).isEqualTo(new CooldownPlan.Refuse(PRIMARY, Duration.ofSeconds(61)));
    clock.advance(Duration.ofSeconds(1));
    assertThat(cooldowns.plan(List.of(PRIMARY, FALLBACK), Deadline.after(Duration.ofMinutes(10), clock), MIN_ATTEMPT,
        MAX_WAIT)).as("exactly max-retry-after is sat out")
        .isEqualTo(new CooldownPlan.Go(List.of(PRIMARY), Duration.ofSeconds(60), List.of(FALLBACK)));
  }

  @Test
  void theSnapshotListsOnlyTargetsStillCooling() {
    cooldowns.coolFor(PRIMARY, Duration.ofSeconds(3));
    cooldowns.coolFor(FALLBACK, Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(2));

    assertThat(cooldowns.snapshot()).containsExactly(java.util.Map.entry(PRIMARY, Duration.ofSeconds(1)));
  }
}
