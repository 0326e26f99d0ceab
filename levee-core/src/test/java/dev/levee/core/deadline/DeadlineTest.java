package dev.levee.core.deadline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** One deadline per request, on a {@link ManualClock}. */
class DeadlineTest {

  private final ManualClock clock = new ManualClock();

  @Test
  void theTimeLeftShrinksAsTheClockMoves() {
    Deadline deadline = Deadline.after(Duration.ofSeconds(10), clock);

    clock.advance(Duration.ofMillis(3_250));

    assertThat(deadline.remaining()).isEqualTo(Duration.ofMillis(6_750));
    assertThat(deadline.expired()).isFalse();
  }

  @Test
  void thePassedDeadlineHasNothingLeftAndNeverANegativeAmount() {
    Deadline deadline = Deadline.after(Duration.ofSeconds(1), clock);

    clock.advance(Duration.ofSeconds(5));

    assertThat(deadline.remaining()).isEqualTo(Duration.ZERO);
    assertThat(deadline.expired()).isTrue();
  }

  @Test
  void theDeadlineExpiresAtItsInstantExactly() {
    Deadline deadline = Deadline.after(Duration.ofSeconds(1), clock);

    clock.advance(Duration.ofSeconds(1).minusNanos(1));
    assertThat(deadline.expired()).isFalse();
    clock.advance(Duration.ofNanos(1));
    assertThat(deadline.expired()).isTrue();
  }

  @Test
  void anAttemptGetsItsFullTimeoutWhenTheDeadlineIsFurther() {
    Deadline deadline = Deadline.after(Duration.ofSeconds(60), clock);

    assertThat(deadline.attemptTimeout(Duration.ofSeconds(20))).isEqualTo(Duration.ofSeconds(20));
  }

  @Test
  void anAttemptIsCutToTheTimeLeftWhenTheDeadlineIsNearer() {
    Deadline deadline = Deadline.after(Duration.ofSeconds(60), clock);
    clock.advance(Duration.ofSeconds(45));

    assertThat(deadline.attemptTimeout(Duration.ofSeconds(20))).isEqualTo(Duration.ofSeconds(15));
  }

  @Test
  void aWaitAndAnAttemptThatEndBeforeTheDeadlineFit() {
    Deadline deadline = Deadline.after(Duration.ofSeconds(5), clock);

    assertThat(deadline.fits(Duration.ofSeconds(2), Duration.ofMillis(100))).isTrue();
  }

  @Test
  void aWaitThatLeavesLessThanTheMinimumForTheAttemptDoesNotFit() {
    Deadline deadline = Deadline.after(Duration.ofSeconds(5), clock);

    assertThat(deadline.fits(Duration.ofMillis(4_901), Duration.ofMillis(100))).isFalse();
  }

  /** Regression: an exact fit was refused, so exactly min-attempt-time left started nothing. */
  @Test
  @Tag("regression")
  void aWaitAndAnAttemptThatEndExactlyAtTheDeadlineFit() {
    Deadline deadline = Deadline.after(Duration.ofSeconds(5), clock);

    assertThat(deadline.fits(Duration.ofMillis(4_900), Duration.ofMillis(100))).isTrue();
    assertThat(deadline.fits(Duration.ZERO, Duration.ofSeconds(5))).isTrue();
  }

  @Test
  void withNoTimeLeftNothingFitsNotEvenWithAZeroMinimum() {
    Deadline deadline = Deadline.after(Duration.ofSeconds(1), clock);
    clock.advance(Duration.ofSeconds(1));

    assertThat(deadline.fits(Duration.ZERO, Duration.ZERO)).isFalse();
  }

  @Test
  void aWaitThatUsesUpAllTheTimeLeftDoesNotFitEvenWithAZeroMinimum() {
    Deadline deadline = Deadline.after(Duration.ofSeconds(1), clock);

    assertThat(deadline.fits(Duration.ofSeconds(1), Duration.ZERO)).isFalse();
  }
}
