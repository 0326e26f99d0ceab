package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.RefusalReason;
import dev.levee.core.chain.AttemptRecord;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One line of the access log: what was asked, which target answered after how many calls, in
 * which tier, and how it ended. Never headers or bodies (they hold API keys and user data).
 *
 * @param id Levee's request id
 * @param method the request's HTTP method, or {@code -} when it is not known (a request Jetty could
 *     not parse, or refused before its request line was read); {@code POST} for an admitted request
 *     and a queued request's try
 * @param path the request path
 * @param alias the requested model; null when ingress refused the request
 * @param stream whether a stream was asked for
 * @param tier the tier the request was admitted at; null when refused
 * @param status the HTTP status sent (499 when the client went away first)
 * @param target the target that answered or refused, or null
 * @param calls upstream calls made, a stream's recovery included
 * @param fallback whether the answering target is not the chain's first
 * @param millis time from arrival to the record, ms
 * @param outcome a word first (counted in metrics: {@code ok}, {@code stream_complete}, {@code
 *     exhausted}, …), then details
 * @param tierCause below T0, the cause of the tier: the last transition's reason for the request's
 *     feature and alias (the target or signal that moved it, or the force); else null
 * @param steps the first attempts' steps (a stream's recovery not included); empty when none
 * @param route the scoring router's candidates and scores ({@code x-levee-route}), or null when
 *     the request was not routed by score
 * @param refusal why Levee refused the request, as a code ({@code refused …} outcomes only; else
 *     null): never the error's message, which may quote what the client sent
 */
record AccessRecord(String id, String method, String path, String alias, boolean stream, Tier tier, int status,
    Target target, int calls, boolean fallback, long millis, String outcome, String tierCause,
    List<AttemptRecord> steps, String route, RefusalReason refusal) {

  AccessRecord {
    steps = steps == null ? List.of() : List.copyOf(steps);
  }

  /** An admitted request's record. */
  AccessRecord(String id, String method, String path, String alias, boolean stream, Tier tier, int status,
      Target target, int calls, boolean fallback, long millis, String outcome, String tierCause,
      List<AttemptRecord> steps, String route) {
    this(id, method, path, alias, stream, tier, status, target, calls, fallback, millis, outcome, tierCause, steps,
        route, null);
  }

  /**
   * The record of an exchange answered before admission: no alias, tier or target.
   *
   * @param refusal why it was refused; null when it was not ({@code replayed}, {@code client_gone})
   */
  static AccessRecord unadmitted(String id, String method, String path, int status, long millis, String outcome,
      RefusalReason refusal) {
    return new AccessRecord(id, method, path, null, false, null, status, null, 0, false, millis, outcome, null,
        List.of(), null, refusal);
  }

  /**
   * How the request's hedge ended, or null when none was due: {@code won} (the hedge answered
   * first), {@code lost} (aborted: the first call answered first, or the request ended), {@code
   * failed}, {@code budget_denied} (its delay passed but its target's retry budget refused it, as
   * it refuses a retry: no call was made).
   */
  String hedge() {
    for (AttemptRecord s : steps) { // once per request: a loop, not a stream
      if (s.hedge()) {
        return switch (s.step()) {
          case ANSWERED -> "won";
          case FAILED -> "failed";
          case BUDGET_DENIED -> "budget_denied";
          default -> "lost";
        };
      }
    }
    return null;
  }

  /** Every call of a hedged request: {@code target step} each, the hedge marked. */
  String attempts() {
    return steps.stream().filter(AttemptRecord::called)
        .map(s -> s.target().id() + " " + s.step().name().toLowerCase(java.util.Locale.ROOT) + (s.hedge() ? " (hedge)" : ""))
        .collect(Collectors.joining(", ", "[", "]"));
  }

  /**
   * Why an answered request was not a plain pass-through, in the words of its {@code
   * x-levee-reason} ({@link AnsweredReason}, from the same steps: a stream's up to its commit
   * point), e.g. {@code "emu/a: 529 overloaded_error (3 calls); emu/b: answered"}; null when no
   * target answered (a failure's outcome says why) or the first call answered alone.
   */
  String reason() {
    for (AttemptRecord s : steps) {
      if (s.step() == AttemptRecord.Step.ANSWERED) {
        return AnsweredReason.of(steps);
      }
    }
    return null;
  }

  /** The outcome's first word. */
  String outcomeWord() {
    int space = outcome.indexOf(' ');
    return space < 0 ? outcome : outcome.substring(0, space);
  }

  boolean refused() {
    return alias == null;
  }
}
