package dev.levee.anthropic.error;

import dev.levee.core.chain.ChainResult.TargetReport;
import dev.levee.core.chain.WaitTooLong;
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
 * retried: retry-after 30 s does not fit in the 12 s left of the deadline)"} when the wait before
 * its retry was too long (see {@link WaitTooLong}: also a stated wait over {@code max-retry-after},
 * or a backoff beyond the deadline).
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
    if (report.waitTooLong() != null) {
      return ", then not retried: " + words(report.waitTooLong());
    }
    return "";
  }

  /**
   * Why a target was not retried when the wait before its retry was too long, in whole seconds for
   * a stated wait and in ms for a backoff; the wait (and {@code min-attempt-time}) rounded up, the
   * limit rounded down:
   *
   * <ul>
   *   <li>{@code "retry-after 30 s does not fit in the 12 s left of the deadline"}; when the stated
   *       wait alone would not read as longer than the time left (the wait sat out is the stated one
   *       plus up to 10% jitter, then {@code min-attempt-time}), that sum too: {@code "retry-after 28
   *       s (with jitter and min-attempt-time 31 s) does not fit in the 30 s left of the deadline"};
   *   <li>{@code "retry-after 120 s is longer than max-retry-after 60 s"} (the first number always
   *       the larger);
   *   <li>{@code "a backoff of 812 ms and min-attempt-time 100 ms do not fit in the 900 ms left of
   *       the deadline"} (the two always add up to more than the time left; the backoff is the one
   *       drawn, full jitter, so another draw may have fit).
   * </ul>
   */
  private static String words(WaitTooLong why) {
    return switch (why) {
      case WaitTooLong.StatedBeyondDeadline w -> "retry-after " + secondsUp(w.stated()) + " s"
          + (secondsUp(w.stated()) > w.left().toSeconds() ? ""
              : " (with jitter and min-attempt-time " + secondsUp(w.needed()) + " s)")
          + " does not fit in the " + w.left().toSeconds() + " s left of the deadline";
      case WaitTooLong.StatedOverMaxRetryAfter w -> "retry-after " + secondsUp(w.stated())
          + " s is longer than max-retry-after " + w.maxRetryAfter().toSeconds() + " s";
      case WaitTooLong.BackoffBeyondDeadline w -> "a backoff of " + millisUp(w.backoff()) + " ms and min-attempt-time "
          + millisUp(w.minAttemptTime()) + " ms do not fit in the " + w.left().toMillis() + " ms left of the deadline";
    };
  }

  private static long secondsUp(Duration d) {
    return (d.toMillis() + 999) / 1000;
  }

  private static long millisUp(Duration d) {
    return (d.toNanos() + 999_999) / 1_000_000;
  }

  /** The report's time left, rounded up to whole seconds (at least 1). */
  private static long seconds(TargetReport report) {
    return Math.max(1, secondsUp(report.openFor()));
  }
}
