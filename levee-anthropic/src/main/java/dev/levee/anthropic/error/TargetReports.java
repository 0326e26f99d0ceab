package dev.levee.anthropic.error;

import dev.levee.core.chain.ChainResult.TargetReport;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The words for how each target of a chain ended, as clients read them in error messages, the
 * {@code x-levee-reason} header and the access log: levee-core reports facts ({@link
 * TargetReport}), this is where they become English.
 *
 * <p>For example {@code "emu/a: 529 overloaded_error (3 calls); emu/b: circuit open (20 s left)"}, or
 * {@code "emu/a: 529 overloaded_error (1 call, then not retried: retry budget exhausted)"} when the
 * target's own retry budget refused its retry (worded as a fallback the budget refused: {@code "not
 * tried: retry budget exhausted"}), or {@code "emu/a: 429 rate_limit_error (1 call, then not
 * retried: retry-after 30 s does not fit in the 12 s left of the deadline)"} when the wait the
 * upstream stated would outlast the request's deadline.
 */
public final class TargetReports {

  private TargetReports() {}

  /** {@code target: outcome} for every report, joined by {@code "; "}. */
  public static String describe(List<TargetReport> reports) {
    return reports.stream().map(TargetReports::describe).collect(Collectors.joining("; "));
  }

  /** {@code target: outcome}, e.g. {@code "emu/a: 500 api_error (1 call)"}. */
  public static String describe(TargetReport report) {
    return report.target().id() + ": " + outcome(report);
  }

  /** The outcome alone, e.g. {@code "circuit open (3 s left)"}; open time is rounded up to whole seconds. */
  public static String outcome(TargetReport report) {
    return switch (report.why()) {
      case NOT_TRIED -> "not tried";
      case DEADLINE_REACHED -> "not tried: deadline reached";
      case BUDGET_EXHAUSTED -> "not tried: retry budget exhausted";
      case CIRCUIT_OPEN -> "circuit open (" + seconds(report) + " s left)";
      case TRIAL_IN_FLIGHT -> "circuit half-open, trial in flight";
      case COOLING -> "cooling after a rate limit (" + seconds(report) + " s left)";
      case FAILED -> (report.failure().status() > 0 ? report.failure().status() + " " : "")
          + report.failure().errorType() + " (" + report.calls() + (report.calls() == 1 ? " call" : " calls")
          + then(report) + ")";
    };
  }

  /** What ended a failed target's calls other than its failures ({@code ", then …"}), or "". */
  private static String then(TargetReport report) {
    if (report.openFor().isPositive()) {
      return ", then its circuit opened: " + seconds(report) + " s left";
    }
    if (report.retryDenied()) {
      return ", then not retried: retry budget exhausted";
    }
    if (report.deadlineLeft() != null) {
      return ", then not retried: " + statedWaitBeyondDeadline(report.failure().retryAfter().orElseThrow(),
          report.deadlineLeft());
    }
    return "";
  }

  /**
   * Why a target whose stated wait outlasts the deadline was not retried, e.g. {@code "retry-after
   * 30 s does not fit in the 12 s left of the deadline"}: the wait rounded up, the time left rounded
   * down, to whole seconds (the wait is jittered and the next call needs {@code min-attempt-time}
   * too, so the two may round to the same number).
   */
  private static String statedWaitBeyondDeadline(Duration stated, Duration left) {
    return "retry-after " + (stated.toMillis() + 999) / 1000 + " s does not fit in the " + left.toSeconds()
        + " s left of the deadline";
  }

  /** The report's time left, rounded up to whole seconds (at least 1). */
  private static long seconds(TargetReport report) {
    return Math.max(1, (report.openFor().toMillis() + 999) / 1000);
  }
}
