package dev.levee.core.chain;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.Gate;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Permit;
import dev.levee.core.budget.Budget;
import dev.levee.core.chain.AttemptRecord.Step;
import dev.levee.core.chain.ChainResult.TargetReport;
import dev.levee.core.chain.ChainResult.Why;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.Scheduler;
import dev.levee.core.time.Sleeper;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;

/**
 * Runs one request through an ordered list of targets: Levee's single retry loop.
 *
 * <p>For each target in order:
 *
 * <ol>
 *   <li>its circuit breaker must admit the call, else the target is skipped;
 *   <li>every call but the request's first on a bucket must take a token from the retry budget
 *       of the target it goes to ({@link RetryBudgets#of}), else that target is not called (again)
 *       and the next one is asked: with a bucket per target a retry spends and a fallback (the
 *       next server's first call) does not, so a target whose failures drained its own budget
 *       neither gets more retries nor stops a fallback to a healthy target, and a failing primary
 *       never drains its fallback's (gRFC A6 throttles retries per server);
 *   <li>the call runs with {@code min(attempt-timeout, deadline left)}, and is not started with
 *       less than {@code min-attempt-time} left;
 *   <li>a failure is classified: a final one (the client's own error) is returned at once; a
 *       retryable one is retried on the same target up to {@code max-retries} times after a
 *       wait (the stated retry-after plus jitter, else full-jitter backoff), unless the wait does
 *       not fit the deadline or the stated wait exceeds {@code max-retry-after}; then the next
 *       target is tried (a wait too long is recorded as a step on its target, {@link
 *       Step#DEADLINE} or {@link Step#OVER_MAX_RETRY_AFTER}, with the {@link WaitTooLong} that
 *       says which wait and what it was too long for, so that a client is told why it was not
 *       retried).
 *       A {@link FailureKind#TIMEOUT} (attempt timeout, slow first token, stall)
 *       hands off at once: the next target is tried, and a silent target is retried only when
 *       it is the last of the chain. A failure that may never go to another target (the client's own
 *       error, even one the upstream's {@code x-should-retry: true} let us retry) ends the chain
 *       as {@link ChainResult.Rejected} once it is no longer retried.
 * </ol>
 *
 * <p><b>Hedging</b> (opt-in per request, {@link #execute(List, Deadline, boolean, Attempt,
 * Duration)}; needs {@link #withHedging}): when the request's first call has not begun to answer
 * after the delay (see {@link AttemptControl#firstByte()}), the next target of the chain is called
 * too — if the deadline holds, its breaker admits it and its own retry budget gives a token. The
 * first to answer wins and the other is aborted at once; a call aborted this way is a {@link
 * AttemptRecord.Step#CANCELLED} step whose permit is settled without a verdict. When the first
 * call fails while its hedge runs, the hedge is waited for; when both fail, the chain goes on
 * from the first call's failure as usual. At most one hedge per request; a stream recovery is
 * never hedged.
 *
 * <p><b>A half-open trial is never hedged</b>: when the request's first call goes out under a
 * {@link Permit#trial() trial} permit (its breaker's own, or a {@link ReservedPermit}), there is no
 * hedge for the request. A hedge that answered first would abort the trial, whose permit is then
 * settled without a verdict: the circuit stays HALF_OPEN and the next trial is again the first
 * call of a hedged request, so a healed target that is slow to begin (a large prompt, a cold
 * cache) would lose every trial to its fallback and never close (review: a queue's trial jobs
 * drained through the fallback). A trial is the breaker's one probe of a suspect target; what it
 * is for is its verdict, not its latency. Hedging is a latency tool among servers expected to
 * answer alike ("The Tail at Scale"), and a target in half-open is not yet one of them. Letting the
 * trial run on after the hedge answered would keep its verdict too, but would leave an upstream
 * call running past the request that owns its cancellation and its deadline. The cost of not
 * hedging is one unhedged request per trial, still bounded by its deadline and falling back as
 * usual when the trial fails. Nor is a hedge ever a trial: a hedge whose target is half-open is not
 * started (review 3: the hedge took the fallback's trial permit, the first call answered first and
 * aborted it, so the fallback's trial was spent without a verdict every time the primary was slow).
 *
 * <p>Thread-safe: one instance serves all requests; per-request state lives on the stack.
 */
public final class FallbackChain {

  private final ChainPolicy policy;
  private final Breakers breakers;
  private final RetryBudgets budgets;
  private final CallObserver observer;
  private final Ticker ticker;
  private final Sleeper sleeper;
  private final RandomGenerator random;
  private final Scheduler hedgeTimers; // null: hedging off
  private final Executor hedgeCalls;

  public FallbackChain(
      ChainPolicy policy,
      Breakers breakers,
      RetryBudgets budgets,
      CallObserver observer,
      Ticker ticker,
      Sleeper sleeper,
      RandomGenerator random) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.breakers = Objects.requireNonNull(breakers, "breakers");
    this.budgets = Objects.requireNonNull(budgets, "budgets");
    this.observer = Objects.requireNonNull(observer, "observer");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.random = Objects.requireNonNull(random, "random");
    this.hedgeTimers = null;
    this.hedgeCalls = null;
  }

  private FallbackChain(FallbackChain chain, Scheduler hedgeTimers, Executor hedgeCalls) {
    this.policy = chain.policy;
    this.breakers = chain.breakers;
    this.budgets = chain.budgets;
    this.observer = chain.observer;
    this.ticker = chain.ticker;
    this.sleeper = chain.sleeper;
    this.random = chain.random;
    this.hedgeTimers = Objects.requireNonNull(hedgeTimers, "hedgeTimers");
    this.hedgeCalls = Objects.requireNonNull(hedgeCalls, "hedgeCalls");
  }

  /**
   * This chain (same breakers, budget and observer) able to hedge.
   *
   * @param timers starts a hedge when its delay has passed (tasks are short and never block)
   * @param calls runs a hedge's call, which blocks: in production a new virtual thread per task;
   *     in tests a direct executor on virtual time
   */
  public FallbackChain withHedging(Scheduler timers, Executor calls) {
    return new FallbackChain(this, timers, calls);
  }

  public ChainPolicy policy() {
    return policy;
  }

  /** The retry budgets: one per configured target, one overflow bucket for the others. */
  public RetryBudgets budgets() {
    return budgets;
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
    return execute(targets, deadline, firstCallIsRetry, attempt, null);
  }

  /**
   * As {@link #execute(List, Deadline, boolean, Attempt)}, hedging the first call after {@code
   * hedgeAfter} (see the class comment).
   *
   * @param hedgeAfter how long the first call may go without beginning to answer before the next
   *     target is called too; null: no hedge (also when this chain cannot hedge, or the call is a
   *     recovery)
   */
  public <T> ChainResult<T> execute(
      List<Target> targets, Deadline deadline, boolean firstCallIsRetry, Attempt<T> attempt, Duration hedgeAfter) {
    return execute(targets, deadline, firstCallIsRetry, attempt, hedgeAfter, ReservedPermit.NONE);
  }

  /**
   * As {@link #execute(List, Deadline, boolean, Attempt, Duration)}, the first call to {@code
   * reserved}'s target going out under that permit instead of one its breaker admits now (see
   * {@link ReservedPermit}; the caller releases it after the run).
   */
  public <T> ChainResult<T> execute(List<Target> targets, Deadline deadline, boolean firstCallIsRetry,
      Attempt<T> attempt, Duration hedgeAfter, ReservedPermit reserved) {
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("a fallback chain needs at least one target");
    }
    boolean hedged = hedgeAfter != null && hedgeTimers != null && !firstCallIsRetry && targets.size() > 1;
    Run<T> run = new Run<>(firstCallIsRetry, hedged ? hedgeAfter : null, Objects.requireNonNull(reserved, "reserved"));
    try {
      for (int i = 0; i < targets.size(); i++) {
        Target next = i + 1 < targets.size() ? targets.get(i + 1) : null;
        ChainResult<T> result = runTarget(run, targets.get(i), next, i > 0, i == targets.size() - 1, deadline, attempt);
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
      Run<T> run, Target target, Target next, boolean fallback, boolean last, Deadline deadline, Attempt<T> attempt)
      throws InterruptedException {
    Gate breaker = breakers.gate(target);
    Budget budget = budgets.of(target);
    Duration waited = Duration.ZERO;
    for (int retry = 0; ; retry++) {
      if (!deadline.fits(Duration.ZERO, policy.minAttemptTime())) {
        run.step(target, Step.DEADLINE, null, waited, Duration.ZERO);
        run.reportIfAbsent(TargetReport.of(target, Why.DEADLINE_REACHED));
        run.stop = true;
        return null;
      }
      Permit permit;
      Permit reserved = run.reserved.take(target);
      switch (reserved != null ? new CircuitBreaker.Admitted(reserved) : breaker.tryAcquire()) {
        case CircuitBreaker.Rejected rejected -> {
          run.step(target, Step.SKIPPED_OPEN, null, waited, Duration.ZERO);
          run.skippedOpen(target, rejected);
          return null;
        }
        case CircuitBreaker.Admitted admitted -> permit = admitted.permit();
      }
      if (!run.freeCallOn(budget) && !budget.tryAcquire()) {
        permit.cancelled();
        run.step(target, Step.BUDGET_DENIED, null, waited, Duration.ZERO);
        run.budgetDenied(target);
        return null; // this target's budget is spent: the next target's own budget decides
      }
      run.calls++;
      int hedgeCall = run.calls + 1;
      HedgeRace<T> race = run.hedgeAfter != null && run.calls == 1 && next != null && !permit.trial()
          ? new HedgeRace<>(attempt, ticker, hedgeCalls, control -> launchHedge(next, hedgeCall, deadline, control))
          : null;
      AttemptContext context = new AttemptContext(target, run.calls, retry, fallback,
          deadline.attemptTimeout(policy.attemptTimeout()), deadline,
          race == null ? AttemptControl.NONE : race.primaryControl());
      long start = ticker.nanos();
      AttemptResult<T> result;
      try {
        if (race == null) {
          result = attempt.call(context);
        } else {
          race.arm(hedgeTimers, run.hedgeAfter);
          result = race.runPrimary(context);
        }
      } catch (InterruptedException e) {
        permit.cancelled();
        run.step(target, Step.FAILED, Failure.of(FailureKind.CANCELLED, 0, "cancelled", "interrupted: the client went away"),
            waited, Duration.ofNanos(ticker.nanos() - start));
        abandon(run, race);
        throw e;
      } catch (RuntimeException e) {
        abandon(run, race);
        permit.cancelled();
        throw e;
      }
      Duration took = Duration.ofNanos(ticker.nanos() - start);
      if (race != null && race.hedgeWon()) { // the hedge answered first and this call was aborted
        permit.cancelled();
        if (result instanceof AttemptResult.Success<T> late) {
          attempt.discard(late.response());
        }
        run.step(target, Step.CANCELLED, null, waited, took);
        return hedgeAnswered(run, race);
      }
      switch (result) {
        case AttemptResult.Success<T> success -> {
          run.step(target, Step.ANSWERED, null, waited, took);
          settleHedge(run, race);
          Completion completion = new Completion(target, permit, budget, observer, took, success.firstToken());
          return new ChainResult.Answered<>(success.response(), target, completion, fallback, List.copyOf(run.steps));
        }
        case AttemptResult.Failed<T> failed -> {
          Failure failure = failed.failure();
          run.step(target, Step.FAILED, failure, waited, took);
          if (failure.kind() == FailureKind.CANCELLED) {
            permit.cancelled();
            abandon(run, race);
            return new ChainResult.Cancelled<>(List.copyOf(run.steps));
          }
          Completion.settle(permit, failure);
          observer.onFailure(target, failure, took);
          run.failed(target, failure, failed.response(), retry + 1);
          Duration openLeft = breaker.state() == CircuitState.OPEN ? breaker.openRemaining() : null;
          if (openLeft != null) { // said whether the chain answers or not, retries left or not
            run.circuitOpenedBy(target, openLeft);
          }
          if (race != null) {
            ChainResult<T> hedged = afterFailedFirstCall(run, race, failure);
            if (hedged != null) {
              return hedged;
            }
          }
          if (!failure.mayRetrySameTarget() || retry >= policy.retry().maxRetries()) {
            return null;
          }
          if (failure.kind() == FailureKind.TIMEOUT && !last) {
            return null; // a silent target: hand off to the next one rather than wait on it again
          }
          if (openLeft != null) {
            run.offerRetryAfter(openLeft);
            return null; // this failure opened the circuit: waiting to retry would only spend the deadline
          }
          Optional<Duration> wait = waitBeforeRetry(failure, retry);
          if (wait.isEmpty()) { // the stated wait is longer than max-retry-after
            run.notRetried(target, new WaitTooLong.StatedOverMaxRetryAfter(failure.retryAfter().orElseThrow(),
                policy.retry().retryAfter().maxRetryAfter()));
            return null;
          }
          if (!deadline.fits(wait.get(), policy.minAttemptTime())) { // the wait would not leave time to try
            Duration left = deadline.remaining();
            run.notRetried(target, failure.retryAfter().isPresent()
                ? new WaitTooLong.StatedBeyondDeadline(failure.retryAfter().get(), wait.get().plus(policy.minAttemptTime()), left)
                : new WaitTooLong.BackoffBeyondDeadline(wait.get(), policy.minAttemptTime(), left));
            return null;
          }
          sleeper.sleep(wait.get());
          waited = wait.get();
        }
      }
    }
  }

  /** The hedge of the first call, when the delay has passed, or why it may not start. */
  private HedgeRace.Start launchHedge(Target target, int call, Deadline deadline, AttemptControl control) {
    if (!deadline.fits(Duration.ZERO, policy.minAttemptTime())) {
      return new HedgeRace.Refused(target, Step.DEADLINE);
    }
    Permit permit;
    switch (breakers.of(target).tryAcquire()) {
      case CircuitBreaker.Rejected rejected -> {
        return new HedgeRace.Refused(target, Step.SKIPPED_OPEN);
      }
      case CircuitBreaker.Admitted admitted -> permit = admitted.permit();
    }
    if (permit.trial()) { // a half-open target is no hedge: a first call that won would abort its trial unjudged
      permit.cancelled();
      return new HedgeRace.Refused(target, Step.SKIPPED_OPEN);
    }
    if (!budgets.of(target).tryAcquire()) {
      permit.cancelled();
      return new HedgeRace.Refused(target, Step.BUDGET_DENIED);
    }
    return new HedgeRace.Launch(new AttemptContext(target, call, 0, true,
        deadline.attemptTimeout(policy.attemptTimeout()), deadline, control), permit);
  }

  /**
   * The first call failed: a retryable failure waits for a running hedge (which may answer); any
   * other ends the race. Returns the hedge's answer, or null to go on from the first call's failure.
   */
  private <T> ChainResult<T> afterFailedFirstCall(Run<T> run, HedgeRace<T> race, Failure failure)
      throws InterruptedException {
    if (failure.kind().tryNextTarget()) {
      try {
        race.awaitHedge();
      } catch (InterruptedException e) {
        settleHedge(run, race);
        throw e;
      }
      if (race.hedgeWon()) {
        return hedgeAnswered(run, race);
      }
    }
    abandon(run, race);
    return null;
  }

  /** Ends a race without a winner and records its hedge, if any. */
  private <T> void abandon(Run<T> run, HedgeRace<T> race) {
    if (race != null) {
      race.abandon();
      settleHedge(run, race);
    }
  }

  /** The hedge answered first: it is the request's answer. */
  private <T> ChainResult<T> hedgeAnswered(Run<T> run, HedgeRace<T> race) {
    HedgeRace.Hedge<T> hedge = race.hedge();
    AttemptResult.Success<T> success = (AttemptResult.Success<T>) hedge.result();
    run.calls++;
    run.step(hedge.target(), Step.ANSWERED, null, Duration.ZERO, hedge.took(), true);
    Completion completion = new Completion(hedge.target(), hedge.permit(), budgets.of(hedge.target()), observer, hedge.took(),
        success.firstToken());
    return new ChainResult.Answered<>(success.response(), hedge.target(), completion, true, List.copyOf(run.steps));
  }

  /**
   * Records the hedge of a race the first call won or nobody won: aborted while it ran (its own
   * thread settles its permit, with no verdict), or failed before the race was decided (settled
   * here, like any failed call); or, when the retry budget refused to start it, a {@link
   * Step#BUDGET_DENIED} step marked as a hedge (a retry the budget refuses is a step too). Once per race.
   */
  private <T> void settleHedge(Run<T> run, HedgeRace<T> race) {
    if (race == null || run.hedgeSettled) {
      return;
    }
    run.hedgeSettled = true;
    HedgeRace.Hedge<T> hedge = race.hedge();
    if (hedge == null) {
      HedgeRace.Refused refused = race.refused();
      if (refused != null && refused.why() == Step.BUDGET_DENIED) { // as a retry the budget refused: a step, no call
        run.step(refused.target(), Step.BUDGET_DENIED, null, Duration.ZERO, Duration.ZERO, true);
      }
      return;
    }
    run.calls++;
    if (hedge.abandoned()) {
      run.step(hedge.target(), Step.CANCELLED, null, Duration.ZERO, hedge.took(), true);
      return;
    }
    Failure failure = ((AttemptResult.Failed<T>) hedge.result()).failure();
    run.step(hedge.target(), Step.FAILED, failure, Duration.ZERO, hedge.took(), true);
    if (failure.kind() == FailureKind.CANCELLED) {
      hedge.permit().cancelled();
      return;
    }
    Completion.settle(hedge.permit(), failure);
    observer.onFailure(hedge.target(), failure, hedge.took());
    run.failed(hedge.target(), failure, ((AttemptResult.Failed<T>) hedge.result()).response(), 1);
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
    final Duration hedgeAfter; // null: the first call is not hedged
    boolean hedgeSettled;
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

    /** The buckets this request has drawn on: its first call on each is free (identity; a few at most). */
    final List<Budget> drawnOn = new ArrayList<>(2);

    /** A permit taken before the run, used by the first call to its target. */
    final ReservedPermit reserved;

    Run(boolean firstCallIsRetry, Duration hedgeAfter, ReservedPermit reserved) {
      this.firstCallIsRetry = firstCallIsRetry;
      this.hedgeAfter = hedgeAfter;
      this.reserved = reserved;
    }

    /**
     * Whether a call drawing on {@code budget} needs no token: the request's first call on that
     * bucket, unless even the first call is a retry. With a bucket per target (gRFC A6 counts
     * per server) a retry of a target spends and a fallback is the next target's first call; with
     * one bucket for every target every call after the request's first spends.
     */
    boolean freeCallOn(Budget budget) {
      for (Budget drawn : drawnOn) {
        if (drawn == budget) {
          return false;
        }
      }
      drawnOn.add(budget);
      return !firstCallIsRetry;
    }

    void step(Target target, Step step, Failure failure, Duration waited, Duration took) {
      step(target, step, failure, waited, took, false);
    }

    void step(Target target, Step step, Failure failure, Duration waited, Duration took, boolean hedge) {
      steps.add(new AttemptRecord(target, step, failure, waited, took, hedge));
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

    /**
     * {@code target}'s budget refused a call: a target that already failed was not retried (its
     * report says so, as {@code x-levee-reason} then does); any other was not tried at all.
     */
    void budgetDenied(Target target) {
      for (int i = 0; i < reports.size(); i++) {
        TargetReport r = reports.get(i);
        if (r.target().equals(target) && r.why() == Why.FAILED) {
          reports.set(i, r.withRetryDenied());
          return;
        }
      }
      reportIfAbsent(TargetReport.of(target, Why.BUDGET_EXHAUSTED));
    }

    /**
     * {@code target}'s last failure allowed a retry, but the wait before it was too long ({@code
     * why}): a step and its report say it was not retried, and why.
     */
    void notRetried(Target target, WaitTooLong why) {
      steps.add(AttemptRecord.notRetried(target, why));
      for (int i = 0; i < reports.size(); i++) {
        TargetReport r = reports.get(i);
        if (r.target().equals(target) && r.why() == Why.FAILED) {
          reports.set(i, r.withWaitTooLong(why));
        }
      }
    }

    /**
     * {@code target}'s last failure opened its circuit: its report and its step say so, and when it
     * admits a trial (a retry it stopped also offers that time as the request's retry-after).
     */
    void circuitOpenedBy(Target target, Duration left) {
      for (int i = steps.size() - 1; i >= 0; i--) {
        AttemptRecord step = steps.get(i);
        if (step.target().equals(target) && step.step() == Step.FAILED) {
          steps.set(i, step.withCircuitOpened(left));
          break;
        }
      }
      for (int i = 0; i < reports.size(); i++) {
        TargetReport r = reports.get(i);
        if (r.target().equals(target) && r.why() == Why.FAILED) {
          reports.set(i, new TargetReport(target, Why.FAILED, r.calls(), r.failure(), left));
        }
      }
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
