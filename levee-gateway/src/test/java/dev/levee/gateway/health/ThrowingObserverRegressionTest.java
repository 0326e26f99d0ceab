package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.chain.AttemptResult;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.ChainPolicy;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.chain.RetryBudgets;
import dev.levee.core.chain.Target;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.retry.RetryPolicy;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Regression (stage 6 robustness): the chain's observers were chained with {@link
 * CallObserver#both}, so one that threw (a bug in an SLI window) threw out of the fallback chain
 * in the middle of a request — a request whose fallback had answered failed with a 500 — and the
 * observers after it were never told. Through {@link GuardedObservers} the chain answers, the
 * others are told, and the breaker still counts the failure.
 */
class ThrowingObserverRegressionTest {

  private static final Target A = new Target("emu", "claude-a");
  private static final Target B = new Target("emu", "claude-b");

  private final ManualClock clock = new ManualClock();
  private final Breakers breakers = new Breakers(
      CircuitBreakerConfig.of(1, Duration.ofSeconds(60), Duration.ofSeconds(30)), clock, t -> { });
  private final List<String> told = new ArrayList<>();

  private final CallObserver recording = new CallObserver() {
    @Override
    public void onSuccess(Target target, Duration latency) {
      told.add("success " + target.id());
    }

    @Override
    public void onFailure(Target target, Failure failure, Duration latency) {
      told.add("failure " + target.id());
    }
  };

  private static final CallObserver THROWING = new CallObserver() {
    @Override
    public void onSuccess(Target target, Duration latency) {
      throw new IllegalStateException("SLI window bug");
    }

    @Override
    public void onFailure(Target target, Failure failure, Duration latency) {
      throw new IllegalStateException("SLI window bug");
    }
  };

  /** Runs {@code A} (answers 529) then {@code B} (answers "hi") through a chain told by {@code observer}. */
  private ChainResult<String> run(CallObserver observer) {
    FallbackChain chain = new FallbackChain(new ChainPolicy(RetryPolicy.NONE, Duration.ofSeconds(20),
        Duration.ofMillis(100)), breakers, RetryBudgets.one(new RetryBudget(10, 0.5)), observer, clock, clock,
        new SplittableRandom(1));
    return chain.execute(List.of(A, B), Deadline.after(Duration.ofSeconds(60), clock), false, context ->
        context.target().equals(A)
            ? AttemptResult.failed(Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "busy"), null)
            : AttemptResult.success("hi"));
  }

  @Test
  void aThrowingObserverNeitherFailsTheCallNorSilencesTheOthers() {
    GuardedObservers guarded = GuardedObservers.of(part -> { }, (part, e) -> { },
        new GuardedObservers.Named("tiers", THROWING), new GuardedObservers.Named("stats", recording));

    ChainResult<String> result = run(guarded);
    assertThat(result).isInstanceOfSatisfying(ChainResult.Answered.class, answered -> {
      assertThat(answered.target()).isEqualTo(B);
      answered.completion().success(); // as stage 6 settles a JSON answer
    });

    assertThat(told).containsExactly("failure emu/claude-a", "success emu/claude-b");
    assertThat(breakers.of(A).state()).as("the failure still counted").isEqualTo(
        dev.levee.core.breaker.CircuitState.OPEN);
  }

  /** What the chain did before: the observer's throw came out of the chain, the answer lost. */
  @Test
  void unguardedTheThrowFailsTheCall() {
    assertThatThrownBy(() -> run(CallObserver.both(THROWING, recording))).isInstanceOf(IllegalStateException.class);
    assertThat(told).isEmpty();
  }
}
