package dev.levee.core.chain;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.Gate;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Permit;
import dev.levee.core.budget.Budget;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.chain.AttemptRecord.Step;
import dev.levee.core.chain.ChainResult.TargetReport;
import dev.levee.core.chain.ChainResult.Why;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.Sleeper;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Runs one request through an ordered list of targets: Levee's single retry loop.
 *
 * <p>For each target in order:
 *
 * <ol>
 *   <li>its circuit breaker must admit the call, else the target is skipped;
 *   <li>every call after the request's first must take a token from the {@link RetryBudget},
 *       else the chain stops;
 *   <li>the call runs with {@code min(attempt-timeout, deadline left)}, and is not started with
 *       less than {@code min-attempt-time} left;
 *   <li>a failure is classified: a final one (the client's own error) is returned at once; a
 *       retryable one is retried on the same target up to {@code max-retries} times after a
 *       wait (the stated retry-after plus jitter, else full-jitter backoff), unless the wait does
 *       not fit the deadline or the stated wait exceeds {@code max-retry-after}; then the next
 *       target is tried. A {@link FailureKind#TIMEOUT} (attempt timeout, slow first token, stall)
 *       hands off at once: the next target is tried, and a silent target is retried only when
 *       it is the last of the chain. A failure that may never go to another target (the client's own
 *       error, even one the upstream's {@code x-should-retry: true} let us retry) ends the chain
 *       as {@link ChainResult.Rejected} once it is no longer retried.
 * </ol>
 *
 * <p>Thread-safe: one instance serves all requests; per-request state lives on the stack.
 */
public final class FallbackChain {

  private final ChainPolicy policy;
  private final Breakers breakers;
  private final Budget budget;
  private final CallObserver observer;
  private final Ticker ticker;
  private final Sleeper sleeper;
  private final RandomGenerator random;

  public FallbackChain(
      ChainPolicy policy,
      Breakers breakers,
      Budget budget,
      CallObserver observer,
      Ticker ticker,
      Sleeper sleeper,
      RandomGenerator random) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.breakers = Objects.requireNonNull(breakers, "breakers");
    this.budget = Objects.requireNonNull(budget, "budget");
    this.observer = Objects.requireNonNull(observer, "observer");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.random = Objects.requireNonNull(random, "random");
  }

  public ChainPolicy policy() {
    return policy;
  }

  public Budget budget() {
    return budget;
  }

  public Breakers breakers() {
    return breakers;
  }

  /**
   * Runs {@code attempt} against {@code targets} until one answers or all are exhausted.
   *
   * @param targets the chain, in order of preference (not empty)
   * @param deadline bounds every call and wait
   * @param firstCallIsRetry whether even the first call needs a budget token (a stream
   *     recovery is extra load, like a retry)
   */
  public <T> ChainResult<T> execute(
      List<Target> targets, Deadline deadline, boolean firstCallIsRetry, Attempt<T> attempt) {
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("a fallback chain needs at least one target");
    }
    Run<T> run = new Run<>(firstCallIsRetry);
    try {
      for (int i = 0; i < targets.size(); i++) {
        ChainResult<T> result = runTarget(run, targets.get(i), i > 0, i == targets.size() - 1, deadline, attempt);
        if (result != null) {
          return result;
        }
        if (run.lastFailure != null && !run.lastFailure.kind().tryNextTarget()) {
          // the client's own error (retried on this target only if the upstream said so): it never moves on
          return new ChainResult.Rejected<>(targets.get(i), run.lastFailure, run.lastResponse, List.copyOf(run.steps));
        }
        if (run.stop) {
          break;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new ChainResult.Cancelled<>(List.copyOf(run.steps));
    }
    return run.exhausted(targets);
  }

  /** Returns a final result, or null to go on with the next target. */
  private <T> ChainResult<T> runTarget(
      Run<T> run, Target target, boolean fallback, boolean last, Deadline deadline, Attempt<T> attempt)
      throws InterruptedException {
    Gate breaker = breakers.gate(target);
    Duration waited = Duration.ZERO;
    for (int retry = 0; ; retry++) {
      if (!deadline.fits(Duration.ZERO, policy.minAttemptTime())) {
        run.step(target, Step.DEADLINE, null, waited, Duration.ZERO);
        run.reportIfAbsent(TargetReport.of(target, Why.DEADLINE_REACHED));
        run.stop = true;
        return null;
      }
      Permit permit;
      switch (breaker.tryAcquire()) {
        case CircuitBreaker.Rejected rejected -> {
          run.step(target, Step.SKIPPED_OPEN, null, waited, Duration.ZERO);
          run.skippedOpen(target, rejected);
          return null;
        }
        case CircuitBreaker.Admitted admitted -> permit = admitted.permit();
      }
      if ((run.calls > 0 || run.firstCallIsRetry) && !budget.tryAcquire()) {
        permit.cancelled();
        run.step(target, Step.BUDGET_DENIED, null, waited, Duration.ZERO);
        run.reportIfAbsent(TargetReport.of(target, Why.BUDGET_EXHAUSTED));
        run.stop = true;
        return null;
      }
      run.calls++;
      AttemptContext context = new AttemptContext(
          target, run.calls, retry, fallback, deadline.attemptTimeout(policy.attemptTimeout()), deadline);
      long start = ticker.nanos();
      AttemptResult<T> result;
      try {
        result = attempt.call(context);
      } catch (InterruptedException e) {
        permit.cancelled();
        run.step(target, Step.FAILED, Failure.of(FailureKind.CANCELLED, 0, "cancelled", "interrupted: the client went away"),
            waited, Duration.ofNanos(ticker.nanos() - start));
        throw e;
      } catch (RuntimeException e) {
        permit.cancelled();
        throw e;
      }
      Duration took = Duration.ofNanos(ticker.nanos() - start);
      switch (result) {
        case AttemptResult.Success<T> success -> {
          run.step(target, Step.ANSWERED, null, waited, took);
          Completion completion = new Completion(target, permit, budget, observer, took);
          return new ChainResult.Answered<>(success.response(), target, completion, fallback, List.copyOf(run.steps));
        }
        case AttemptResult.Failed<T> failed -> {
          Failure failure = failed.failure();
          run.step(target, Step.FAILED, failure, waited, took);
          if (failure.kind() == FailureKind.CANCELLED) {
            permit.cancelled();
            return new ChainResult.Cancelled<>(List.copyOf(run.steps));
          }
          Completion.settle(permit, failure);
          observer.onFailure(target, failure, took);
          run.failed(target, failure, failed.response(), retry + 1);
          if (!failure.mayRetrySameTarget() || retry >= policy.retry().maxRetries()) {
            return null;
          }
          if (failure.kind() == FailureKind.TIMEOUT && !last) {
            return null; // a silent target: hand off to the next one rather than wait on it again
          }
          if (breaker.state() == CircuitState.OPEN) {
            run.offerRetryAfter(breaker.openRemaining());
            return null; // this failure opened the circuit: waiting to retry would only spend the deadline
          }
          Optional<Duration> wait = waitBeforeRetry(failure, retry);
          if (wait.isEmpty() || !deadline.fits(wait.get(), policy.minAttemptTime())) {
            return null; // the stated wait is too long, or would not leave time to try
          }
          sleeper.sleep(wait.get());
          waited = wait.get();
        }
      }
    }
  }

  private Optional<Duration> waitBeforeRetry(Failure failure, int retry) {
    if (failure.retryAfter().isPresent()) {
      return policy.retry().retryAfter().waitFor(failure.retryAfter().get(), random);
    }
    boolean overloaded = failure.kind() == FailureKind.OVERLOADED;
    return Optional.of(policy.retry().backoff().delay(retry, overloaded, random));
  }

  /** The mutable state of one execution; confined to the request's thread. */
  private static final class Run<T> {
    final boolean firstCallIsRetry;
    final List<AttemptRecord> steps = new ArrayList<>();
    final List<TargetReport> reports = new ArrayList<>();
    int calls;
    int skippedOpen;
    boolean stop;
    Failure lastFailure;
    T lastResponse;
    Duration earliestRetry;
    /** The wait each target stated last: a later answer replaces an earlier one (issue 10: 2 s, 10 s, 30 s means 30 s). */
    final java.util.Map<Target, Duration> statedWaits = new java.util.HashMap<>();

    Run(boolean firstCallIsRetry) {
      this.firstCallIsRetry = firstCallIsRetry;
    }

    void step(Target target, Step step, Failure failure, Duration waited, Duration took) {
      steps.add(new AttemptRecord(target, step, failure, waited, took));
    }

    void reportIfAbsent(TargetReport report) {
      if (reports.stream().noneMatch(r -> r.target().equals(report.target()))) {
        reports.add(report);
      }
    }

    void skippedOpen(Target target, CircuitBreaker.Rejected rejected) {
      skippedOpen++;
      Duration left = rejected.retryAfter();
      reportIfAbsent(rejected.state() == CircuitState.OPEN
          ? new TargetReport(target, Why.CIRCUIT_OPEN, 0, null, left)
          : TargetReport.of(target, Why.TRIAL_IN_FLIGHT));
      offerRetryAfter(left);
    }

    void failed(Target target, Failure failure, T response, int callsOnTarget) {
      lastFailure = failure;
      lastResponse = response;
      reports.removeIf(r -> r.target().equals(target));
      reports.add(new TargetReport(target, Why.FAILED, callsOnTarget, failure, Duration.ZERO));
      failure.retryAfter().ifPresent(wait -> statedWaits.put(target, wait));
    }

    void offerRetryAfter(Duration d) {
      if (earliestRetry == null || d.compareTo(earliestRetry) < 0) {
        earliestRetry = d;
      }
    }

    ChainResult<T> exhausted(List<Target> targets) {
      statedWaits.values().forEach(this::offerRetryAfter);
      List<TargetReport> ordered = new ArrayList<>();
      for (Target target : targets) {
        ordered.add(reports.stream().filter(r -> r.target().equals(target)).findFirst()
            .orElse(TargetReport.of(target, Why.NOT_TRIED)));
      }
      return new ChainResult.Exhausted<>(lastFailure, lastResponse, Optional.ofNullable(earliestRetry),
          skippedOpen == targets.size() && calls == 0, List.copyOf(ordered), List.copyOf(steps));
    }
  }
}
