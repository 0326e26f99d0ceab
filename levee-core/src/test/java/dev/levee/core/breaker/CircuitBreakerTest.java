package dev.levee.core.breaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.breaker.CircuitBreaker.Verdict;
import dev.levee.core.breaker.CircuitBreaker.Admitted;
import dev.levee.core.breaker.CircuitBreaker.Rejected;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The breaker's state machine, driven on a {@link ManualClock}. */
class CircuitBreakerTest {

  /** 3 failures in 10 s open it for 30 s; 1 trial at a time; 2 trial successes close it. */
  private static final CircuitBreakerConfig CONFIG =
      CircuitBreakerConfig.of(3, Duration.ofSeconds(10), Duration.ofSeconds(30));

  private final ManualClock clock = new ManualClock();
  private final List<Transition> transitions = new ArrayList<>();

  private CircuitBreaker breaker(CircuitBreakerConfig config) {
    CircuitBreaker breaker = new CircuitBreaker("anthropic/claude-test", config, clock);
    breaker.onTransition(transitions::add);
    return breaker;
  }

  private static Permit admitted(Verdict admission) {
    assertThat(admission).isInstanceOf(Admitted.class);
    return ((Admitted) admission).permit();
  }

  private static Rejected rejected(Verdict admission) {
    assertThat(admission).isInstanceOf(Rejected.class);
    return (Rejected) admission;
  }

  private static void fail(CircuitBreaker breaker, int times) {
    for (int i = 0; i < times; i++) {
      admitted(breaker.tryAcquire()).failure();
    }
  }

  /** Opens the breaker with {@code failures} failures at the current time. */
  private static void open(CircuitBreaker breaker) {
    fail(breaker, breaker.config().failures());
    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
  }

  /** Opens the breaker and lets its open period pass. */
  private void openAndWaitOut(CircuitBreaker breaker) {
    open(breaker);
    clock.advance(breaker.config().openFor());
  }

  // --- CLOSED ---

  private static void succeed(CircuitBreaker breaker, int times) {
    for (int i = 0; i < times; i++) {
      admitted(breaker.tryAcquire()).success();
    }
  }

  /**
   * Regression (session 6 newcomer trial): the count alone opened a busy target's circuit. With 2 %
   * of its calls failing, 5 failures came within 30 s, the default breaker opened, and Levee
   * refused 55 % of the requests that the upstream would have answered. The failures must also
   * be {@code failureRate} (default a tenth) of the window's calls.
   */
  @Test
  void aBusyTargetsSporadicFailuresDoNotOpenItsCircuit() {
    CircuitBreaker breaker = breaker(CircuitBreakerConfig.DEFAULT);
    for (int i = 0; i < 10; i++) { // 10 failures among 500 calls in 25 s: 2 %
      succeed(breaker, 49);
      fail(breaker, 1);
      clock.advance(Duration.ofMillis(2_500));
    }
    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(transitions).isEmpty();
  }

  @Test
  void failuresThatAreATenthOfTheWindowsCallsOpenIt() {
    CircuitBreaker breaker = breaker(CONFIG); // 3 failures in 10 s, default rate 0.1
    succeed(breaker, 30);
    fail(breaker, 3); // 3 of 33 calls: 9 %
    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);

    fail(breaker, 1); // 4 of 34: 12 %

    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
    assertThat(transitions.getLast().reason()).isEqualTo("3 failures within 10s");
  }

  @Test
  void successesOutsideTheWindowNoLongerHoldItClosed() {
    CircuitBreaker breaker = breaker(CONFIG.withFailureRate(0.9));
    succeed(breaker, 100);
    clock.advance(Duration.ofSeconds(11)); // the successes age out
    fail(breaker, 3);

    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void aNewBreakerIsClosedAndAdmitsCallsThatAreNotTrials() {
    CircuitBreaker breaker = breaker(CONFIG);

    Permit permit = admitted(breaker.tryAcquire());

    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(permit.trial()).isFalse();
    assertThat(transitions).isEmpty();
  }

  @Test
  void oneFailureFewerThanTheThresholdKeepsItClosed() {
    CircuitBreaker breaker = breaker(CONFIG);

    fail(breaker, 2);

    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(breaker.snapshot().recentFailures()).isEqualTo(2);
  }

  @Test
  void theThresholdOfFailuresInsideTheWindowOpensIt() {
    CircuitBreaker breaker = breaker(CONFIG);
    long start = clock.nanos();

    fail(breaker, 1);
    clock.advance(Duration.ofSeconds(4));
    fail(breaker, 1);
    clock.advance(Duration.ofSeconds(5)); // 9 s after the first: all three inside 10 s
    fail(breaker, 1);

    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
    assertThat(transitions).singleElement().satisfies(t -> {
      assertThat(t.breaker()).isEqualTo("anthropic/claude-test");
      assertThat(t.from()).isEqualTo(CircuitState.CLOSED);
      assertThat(t.to()).isEqualTo(CircuitState.OPEN);
      assertThat(t.reason()).contains("3 failures");
      assertThat(t.atNanos()).isEqualTo(start + Duration.ofSeconds(9).toNanos());
    });
  }

  @Test
  void failuresOlderThanTheWindowAgeOutAndDoNotCount() {
    CircuitBreaker breaker = breaker(CONFIG);

    fail(breaker, 2);
    clock.advance(Duration.ofSeconds(10).plusMillis(1)); // both are now older than 10 s
    fail(breaker, 2);

    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(breaker.snapshot().recentFailures()).isEqualTo(2);
  }

  @Test
  void theWindowSlidesSoTheOldestFailureLeavesWhileLaterOnesStay() {
    CircuitBreaker breaker = breaker(CONFIG);

    fail(breaker, 1); // t = 0
    clock.advance(Duration.ofSeconds(6));
    fail(breaker, 1); // t = 6
    clock.advance(Duration.ofSeconds(6));
    fail(breaker, 1); // t = 12: the first has aged out, two remain
    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);

    clock.advance(Duration.ofSeconds(3));
    fail(breaker, 1); // t = 15: failures at 6, 12, 15 lie inside 10 s

    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void successesBetweenFailuresDoNotResetTheWindow() {
    CircuitBreaker breaker = breaker(CONFIG);

    fail(breaker, 2);
    admitted(breaker.tryAcquire()).success();
    admitted(breaker.tryAcquire()).success();
    fail(breaker, 1);

    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void cancelledCallsDoNotCountAsFailures() {
    CircuitBreaker breaker = breaker(CONFIG);

    for (int i = 0; i < 5; i++) {
      admitted(breaker.tryAcquire()).cancelled();
    }

    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(breaker.snapshot().recentFailures()).isZero();
  }

  // --- OPEN ---

  @Test
  void anOpenBreakerRejectsAtOnceWithTheTimeLeft() {
    CircuitBreaker breaker = breaker(CONFIG);
    open(breaker);
    clock.advance(Duration.ofSeconds(12));

    Rejected rejected = rejected(breaker.tryAcquire());

    assertThat(rejected.state()).isEqualTo(CircuitState.OPEN);
    assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(18));
    assertThat(breaker.snapshot())
        .isEqualTo(new CircuitBreaker.Snapshot(CircuitState.OPEN, Duration.ofSeconds(18), 0));
  }

  @Test
  void anOpenBreakerStillRejectsOneNanosecondBeforeItsOpenPeriodEnds() {
    CircuitBreaker breaker = breaker(CONFIG);
    open(breaker);
    clock.advance(Duration.ofSeconds(30).minusNanos(1));

    assertThat(rejected(breaker.tryAcquire()).retryAfter()).isEqualTo(Duration.ofNanos(1));
    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
  }

  // --- HALF_OPEN ---

  @Test
  void afterTheOpenPeriodOneCallIsAdmittedAsATrial() {
    CircuitBreaker breaker = breaker(CONFIG);
    openAndWaitOut(breaker);

    Permit trial = admitted(breaker.tryAcquire());

    assertThat(trial.trial()).isTrue();
    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(transitions).extracting(Transition::to)
        .containsExactly(CircuitState.OPEN, CircuitState.HALF_OPEN);
    assertThat(transitions.get(1).from()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void whileTheOnlyTrialIsInFlightOtherCallsAreRejected() {
    CircuitBreaker breaker = breaker(CONFIG);
    openAndWaitOut(breaker);
    admitted(breaker.tryAcquire());

    Rejected rejected = rejected(breaker.tryAcquire());

    assertThat(rejected.state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(rejected.retryAfter()).isEqualTo(Duration.ZERO);
  }

  @Test
  void awaitingTrialWhileEveryTrialSlotIsInFlightAndNotOnceATrialSettles() {
    CircuitBreaker breaker = breaker(CONFIG.withHalfOpenTrials(2));
    open(breaker);
    assertThat(breaker.awaitingTrial()).as("OPEN: its own hold, not a trial's").isFalse();
    clock.advance(CONFIG.openFor());

    Permit first = admitted(breaker.tryAcquire());
    assertThat(breaker.awaitingTrial()).as("a trial slot is still free").isFalse();
    admitted(breaker.tryAcquire());
    assertThat(breaker.awaitingTrial()).isTrue();

    first.success();

    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(breaker.awaitingTrial()).as("a slot is free again").isFalse();
  }

  @Test
  void halfOpenTrialsBoundsHowManyTrialsRunAtOnce() {
    CircuitBreaker breaker = breaker(CONFIG.withHalfOpenTrials(3));
    openAndWaitOut(breaker);

    for (int i = 0; i < 3; i++) {
      assertThat(admitted(breaker.tryAcquire()).trial()).isTrue();
    }
    rejected(breaker.tryAcquire());
  }

  @Test
  void oneTrialSuccessIsNotEnoughToCloseByDefault() {
    CircuitBreaker breaker = breaker(CONFIG);
    openAndWaitOut(breaker);

    admitted(breaker.tryAcquire()).success();

    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
  }

  @Test
  void twoConsecutiveTrialSuccessesCloseItByDefault() {
    CircuitBreaker breaker = breaker(CONFIG);
    openAndWaitOut(breaker);

    admitted(breaker.tryAcquire()).success();
    admitted(breaker.tryAcquire()).success();

    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    Transition last = transitions.getLast();
    assertThat(last.from()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(last.to()).isEqualTo(CircuitState.CLOSED);
    assertThat(last.reason()).contains("2 trial");
    assertThat(admitted(breaker.tryAcquire()).trial()).isFalse();
  }

  @Test
  void closeAfterSetsHowManyTrialSuccessesCloseIt() {
    CircuitBreaker breaker = breaker(CONFIG.withCloseAfter(3));
    openAndWaitOut(breaker);

    admitted(breaker.tryAcquire()).success();
    admitted(breaker.tryAcquire()).success();
    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
    admitted(breaker.tryAcquire()).success();

    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void aTrialFailureReopensItForAFreshOpenPeriod() {
    CircuitBreaker breaker = breaker(CONFIG);
    openAndWaitOut(breaker);
    clock.advance(Duration.ofSeconds(7)); // late trial: the fresh period starts at its failure
    admitted(breaker.tryAcquire()).success();

    admitted(breaker.tryAcquire()).failure();

    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
    assertThat(rejected(breaker.tryAcquire()).retryAfter()).isEqualTo(Duration.ofSeconds(30));
    assertThat(transitions.getLast().from()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(transitions.getLast().reason()).contains("trial");
  }

  @Test
  void aTrialSuccessBeforeAReopeningDoesNotCountTowardsClosingLater() {
    CircuitBreaker breaker = breaker(CONFIG);
    openAndWaitOut(breaker);
    admitted(breaker.tryAcquire()).success();
    admitted(breaker.tryAcquire()).failure();
    clock.advance(CONFIG.openFor());

    admitted(breaker.tryAcquire()).success();

    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
  }

  @Test
  void aCancelledTrialFreesItsSlotWithoutCounting() {
    CircuitBreaker breaker = breaker(CONFIG);
    openAndWaitOut(breaker);
    admitted(breaker.tryAcquire()).success();

    admitted(breaker.tryAcquire()).cancelled(); // neither a success nor a failure
    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
    admitted(breaker.tryAcquire()).success(); // the slot was free; this is the second success

    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void afterClosingFromHalfOpenTheFailureWindowStartsEmpty() {
    CircuitBreaker breaker = breaker(CONFIG);
    openAndWaitOut(breaker);
    admitted(breaker.tryAcquire()).success();
    admitted(breaker.tryAcquire()).success();

    fail(breaker, 2);

    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(breaker.snapshot().recentFailures()).isEqualTo(2);
  }

  // --- permits outliving a state change ---

  @Test
  void aFailureOfACallAdmittedBeforeTheBreakerOpenedIsIgnored() {
    CircuitBreaker breaker = breaker(CONFIG);
    Permit slow = admitted(breaker.tryAcquire());
    open(breaker);
    clock.advance(CONFIG.openFor());
    admitted(breaker.tryAcquire()).success(); // half-open, one trial success so far

    slow.failure();

    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
  }

  @Test
  void aSuccessOfACallAdmittedWhileClosedDoesNotCountAsATrial() {
    CircuitBreaker breaker = breaker(CONFIG);
    Permit slow = admitted(breaker.tryAcquire());
    openAndWaitOut(breaker);
    admitted(breaker.tryAcquire()).success(); // first trial success

    slow.success(); // must not be the second

    assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
  }

  @Test
  void aTrialOfAnEarlierHalfOpenPeriodDoesNotFreeASlotOfTheCurrentOne() {
    CircuitBreaker breaker = breaker(CONFIG.withHalfOpenTrials(2));
    openAndWaitOut(breaker);
    Permit oldTrial = admitted(breaker.tryAcquire());
    admitted(breaker.tryAcquire()).failure(); // reopens
    clock.advance(CONFIG.openFor());
    admitted(breaker.tryAcquire());
    admitted(breaker.tryAcquire()); // both slots of the new period taken

    oldTrial.cancelled();

    rejected(breaker.tryAcquire());
  }

  @Test
  void aPermitSettledTwiceIsRefused() {
    CircuitBreaker breaker = breaker(CONFIG);
    Permit permit = admitted(breaker.tryAcquire());
    permit.failure();

    assertThatThrownBy(permit::failure).isInstanceOf(IllegalStateException.class);
    assertThat(permit.isSettled()).isTrue();
    assertThat(breaker.snapshot().recentFailures()).isEqualTo(1);
  }

  @Test
  void everyListenerHearsEveryTransitionInOrder() {
    CircuitBreaker breaker = breaker(CONFIG);
    List<CircuitState> second = new ArrayList<>();
    breaker.onTransition(t -> second.add(t.to()));

    openAndWaitOut(breaker);
    admitted(breaker.tryAcquire()).success();
    admitted(breaker.tryAcquire()).success();

    List<CircuitState> expected = List.of(CircuitState.OPEN, CircuitState.HALF_OPEN, CircuitState.CLOSED);
    assertThat(transitions).extracting(Transition::to).isEqualTo(expected);
    assertThat(second).isEqualTo(expected);
    assertThat(transitions).allSatisfy(t -> assertThat(t.reason()).isNotBlank());
  }

  @Test
  void aDisabledBreakerAdmitsEveryCallAndNeverOpens() {
    CircuitBreaker off = CircuitBreaker.disabled("anthropic/m", clock);

    for (int i = 0; i < 100; i++) {
      assertThat(off.tryAcquire()).isInstanceOf(CircuitBreaker.Admitted.class);
      ((CircuitBreaker.Admitted) off.tryAcquire()).permit().failure();
    }

    assertThat(off.state()).isEqualTo(CircuitState.CLOSED);
  }
}
