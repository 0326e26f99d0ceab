package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.TargetReports;
import dev.levee.core.chain.AttemptRecord;
import dev.levee.core.chain.AttemptRecord.Step;
import dev.levee.core.chain.ChainResult.TargetReport;
import dev.levee.core.chain.ChainResult.Why;
import dev.levee.core.chain.Target;
import dev.levee.core.chain.WaitTooLong;
import dev.levee.core.retry.Failure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code x-levee-reason} of an answer that is not a plain pass-through — it came after retries, a
 * fallback or a hedge: how each target the request met ended, in the words of an "every target
 * failed" answer ({@link dev.levee.anthropic.error.TargetReports}), e.g. {@code "emu/a: 529
 * overloaded_error (3 calls); emu/b: answered"}, {@code "emu/a: 529 overloaded_error (1 call), then
 * answered"}, {@code "emu/a: circuit open; emu/b: answered"} or {@code "emu/a: cancelled after 500
 * ms, its hedge answered first; emu/b: answered (hedge)"}; a target whose failure opened its
 * circuit says so, as in the failure's words: {@code "emu/a: 529 overloaded_error (1 call, then its
 * circuit opened: 30 s left); emu/b: answered"}, as does one whose wait before a retry was too long
 * (its stated wait outlasted the deadline or {@code max-retry-after}, its backoff the deadline):
 * {@code "emu/a: 429 rate_limit_error (1 call, then not retried: retry-after 30 s does not fit in
 * the 12 s left of the deadline); emu/b: answered"}. Read from the chain's steps up to the
 * answer (a stream's: up to its commit point). Stateless.
 */
final class AnsweredReason {

  private AnsweredReason() {}

  /**
   * The reason, or null when the answer was the first target's first call and nothing else was
   * tried (a hedge the retry budget refused is no detour: it made no call; the access log names it).
   */
  static String of(List<AttemptRecord> steps) {
    List<AttemptRecord> met = new ArrayList<>(steps.size());
    for (AttemptRecord step : steps) {
      if (!(step.hedge() && step.step() == Step.BUDGET_DENIED)) {
        met.add(step);
      }
    }
    if (met.size() <= 1) {
      return null;
    }
    Map<Target, List<AttemptRecord>> byTarget = new LinkedHashMap<>();
    met.forEach(step -> byTarget.computeIfAbsent(step.target(), t -> new ArrayList<>()).add(step));
    List<String> parts = new ArrayList<>(byTarget.size());
    byTarget.forEach((target, own) -> parts.add(target.id() + ": " + ended(target, own)));
    return String.join("; ", parts);
  }

  /** How one target's steps ended. */
  private static String ended(Target target, List<AttemptRecord> own) {
    int failed = 0;
    Failure last = null;
    Duration opened = Duration.ZERO;
    boolean retryDenied = false;
    WaitTooLong waitTooLong = null; // the wait before its retry was too long
    String end = null;
    for (AttemptRecord step : own) {
      switch (step.step()) {
        case FAILED -> {
          failed++;
          last = step.failure();
          opened = step.circuitOpened();
          waitTooLong = null; // a give-up belongs to the failure just before it
        }
        case BUDGET_DENIED -> retryDenied = true;
        case SKIPPED_OPEN -> end = "circuit open";
        case DEADLINE -> {
          if (step.waitTooLong() != null) {
            waitTooLong = step.waitTooLong();
          } else {
            end = "not tried: deadline reached";
          }
        }
        case OVER_MAX_RETRY_AFTER -> waitTooLong = step.waitTooLong();
        case CANCELLED -> end = "cancelled after " + step.took().toMillis() + " ms, "
            + (step.hedge() ? "the first call answered first (hedge)" : "its hedge answered first");
        case ANSWERED -> end = step.hedge() ? "answered (hedge)" : "answered";
      }
    }
    String failures = last == null ? null // in the words of an all-failed answer
        : TargetReports.outcome(new TargetReport(target, Why.FAILED, failed, last, opened, retryDenied, waitTooLong));
    if (failures == null) {
      return end != null ? end : retryDenied ? "not tried: retry budget exhausted" : "not tried";
    }
    return end == null ? failures : failures + ", then " + end;
  }
}
