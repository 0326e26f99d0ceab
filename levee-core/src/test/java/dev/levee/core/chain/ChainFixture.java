package dev.levee.core.chain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Transition;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Backoff;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.retry.RetryAfterPolicy;
import dev.levee.core.retry.RetryPolicy;
import dev.levee.core.testing.ScriptedRandom;
import dev.levee.core.time.ManualClock;
import dev.levee.core.time.Sleeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The world of a {@link FallbackChain} test: a fake clock, a scripted upstream, real breakers and
 * a real budget. Tests change the fields they care about before calling {@link #run}.
 *
 * <p>Defaults: up to 2 retries per target; backoff 500 ms base, 8 s cap; retry-after honoured up
 * to 60 s with 10% jitter; attempt timeout 20 s; min-attempt-time 100 ms; a 60 s deadline; every
 * U(0,1) draw is 0.5; breakers open after 3 failures in 60 s for 30 s and close after 1 trial
 * success; the budget holds 10 tokens and earns 0.5 per success, one bucket every target draws on
 * (set {@link #budgets} to give targets their own).
 */
abstract class ChainFixture {

  static final Target A = Target.parse("anthropic/claude-a");
  static final Target B = Target.parse("bedrock/claude-b");
  static final Target C = Target.parse("vertex/claude-c");

  static final CircuitBreakerConfig BREAKER =
      new CircuitBreakerConfig(3, Duration.ofSeconds(60), Duration.ofSeconds(30), 1, 1);
  static final Duration DEADLINE = Duration.ofSeconds(60);

  final ManualClock clock = new ManualClock();
  final List<Transition> transitions = new ArrayList<>();
  final Breakers breakers = new Breakers(BREAKER, clock, transitions::add);
  final ScriptedUpstream upstream = new ScriptedUpstream(clock);
  final RecordingObserver observer = new RecordingObserver();

  RetryBudget budget = new RetryBudget(10, 0.5);
  RetryBudgets budgets; // null: every target draws on {@link #budget}
  RandomGenerator random = ScriptedRandom.always(0.5);
  Sleeper sleeper = clock;
  ChainPolicy policy = policy(2);

  static ChainPolicy policy(int maxRetries) {
    return new ChainPolicy(
        new RetryPolicy(maxRetries, new Backoff(Duration.ofMillis(500), Duration.ofSeconds(8)), RetryAfterPolicy.DEFAULT),
        Duration.ofSeconds(20),
        Duration.ofMillis(100));
  }

  FallbackChain chain() {
    return new FallbackChain(policy, breakers, budgets != null ? budgets : RetryBudgets.one(budget), observer, clock,
        sleeper, random);
  }

  /** Runs the chain over {@code targets} with the default deadline; the first call is free. */
  ChainResult<String> run(Target... targets) {
    return run(DEADLINE, false, targets);
  }

  ChainResult<String> run(Duration deadline, Target... targets) {
    return run(deadline, false, targets);
  }

  ChainResult<String> run(Duration deadline, boolean firstCallIsRetry, Target... targets) {
    return chain().execute(List.of(targets), Deadline.after(deadline, clock), firstCallIsRetry, upstream);
  }

  CircuitBreaker breaker(Target target) {
    return breakers.of(target);
  }

  /** Opens {@code target}'s breaker now, for 30 s. */
  void open(Target target) {
    for (int i = 0; i < BREAKER.failures(); i++) {
      ((CircuitBreaker.Admitted) breaker(target).tryAcquire()).permit().failure();
    }
    assertThat(breaker(target).state()).isEqualTo(CircuitState.OPEN);
  }

  /** Opens {@code target}'s breaker and lets the open period pass: its next call is a trial. */
  void readyForTrial(Target target) {
    open(target);
    clock.advance(BREAKER.openFor());
  }

  /** Whether {@code target}'s breaker would admit a call now (a probe that settles at once). */
  boolean admitsACall(Target target) {
    if (breaker(target).tryAcquire() instanceof CircuitBreaker.Admitted admitted) {
      admitted.permit().cancelled();
      return true;
    }
    return false;
  }

  static ChainResult.Answered<String> answered(ChainResult<String> result) {
    assertThat(result).isInstanceOf(ChainResult.Answered.class);
    return (ChainResult.Answered<String>) result;
  }

  static ChainResult.Rejected<String> rejected(ChainResult<String> result) {
    assertThat(result).isInstanceOf(ChainResult.Rejected.class);
    return (ChainResult.Rejected<String>) result;
  }

  static ChainResult.Exhausted<String> exhausted(ChainResult<String> result) {
    assertThat(result).isInstanceOf(ChainResult.Exhausted.class);
    return (ChainResult.Exhausted<String>) result;
  }

  static ChainResult.Cancelled<String> cancelled(ChainResult<String> result) {
    assertThat(result).isInstanceOf(ChainResult.Cancelled.class);
    return (ChainResult.Cancelled<String>) result;
  }

  /** Each target's report, in chain order, as one short line of its facts. */
  static List<String> reports(ChainResult.Exhausted<String> result) {
    return result.targets().stream().map(r -> r.target() + ": " + facts(r)).toList();
  }

  private static String facts(ChainResult.TargetReport r) {
    return switch (r.why()) {
      case NOT_TRIED -> "not tried";
      case DEADLINE_REACHED -> "not tried: deadline reached";
      case BUDGET_EXHAUSTED -> "not tried: retry budget exhausted";
      case CIRCUIT_OPEN -> "circuit open (" + Math.max(1, (r.openFor().toMillis() + 999) / 1000) + " s left)";
      case TRIAL_IN_FLIGHT -> "circuit half-open, trial in flight";
      case COOLING -> "cooling (" + r.openFor().toSeconds() + " s left)";
      case FAILED -> (r.failure().status() > 0 ? r.failure().status() + " " : "") + r.failure().errorType()
          + " (" + r.calls() + (r.calls() == 1 ? " call" : " calls")
          + (r.openFor().isPositive() ? ", then its circuit opened: " + (r.openFor().toMillis() + 999) / 1000 + " s left)"
              : r.retryDenied() ? ", then not retried: retry budget exhausted)"
              : r.waitTooLong() != null ? ", then not retried: " + facts(r.waitTooLong()) + ")"
              : ")");
    };
  }

  private static String facts(WaitTooLong why) {
    return switch (why) {
      case WaitTooLong.StatedBeyondDeadline w -> "retry-after " + w.stated().toSeconds() + " s"
          + (w.stated().toSeconds() > w.left().toSeconds() ? "" : " (with jitter and min-attempt-time "
              + (w.needed().toMillis() + 999) / 1000 + " s)")
          + " does not fit in the " + w.left().toSeconds() + " s left of the deadline";
      case WaitTooLong.StatedOverMaxRetryAfter w -> "retry-after " + w.stated().toSeconds()
          + " s is longer than max-retry-after " + w.maxRetryAfter().toSeconds() + " s";
      case WaitTooLong.BackoffBeyondDeadline w -> "a backoff of " + w.backoff().toMillis() + " ms and min-attempt-time "
          + w.minAttemptTime().toMillis() + " ms do not fit in the " + w.left().toMillis() + " ms left of the deadline";
    };
  }

  static List<AttemptRecord.Step> steps(ChainResult<String> result) {
    return result.steps().stream().map(AttemptRecord::step).toList();
  }

  static List<Duration> waits(ChainResult<String> result) {
    return result.steps().stream().map(AttemptRecord::waited).toList();
  }

  /** A {@link CallObserver} that remembers what it was told. */
  static final class RecordingObserver implements CallObserver {
    record Event(Target target, FailureKind failure, Duration latency) {
      boolean success() {
        return failure == null;
      }
    }

    final List<Event> events = java.util.Collections.synchronizedList(new ArrayList<>());
    /** For each success, whether its latency was a time to first token. */
    final List<Boolean> firstTokens = java.util.Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onSuccess(Target target, Duration latency) {
      events.add(new Event(target, null, latency));
    }

    @Override
    public void onSuccess(Target target, Duration latency, boolean firstToken) {
      firstTokens.add(firstToken);
      onSuccess(target, latency);
    }

    @Override
    public void onFailure(Target target, Failure failure, Duration latency) {
      events.add(new Event(target, failure.kind(), latency));
    }
  }
}
