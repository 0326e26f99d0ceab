package dev.levee.gateway.pipeline;

import dev.levee.core.chain.Target;

/**
 * What the responder sent the client, for the record.
 *
 * @param status the HTTP status (499 when the client went away first)
 * @param target the target that answered or refused, or null
 * @param calls upstream calls made, a stream's recovery included
 * @param fallback whether the answering target is not the chain's first
 * @param outcome a word first (counted in metrics), then details
 */
record Sent(int status, Target target, int calls, boolean fallback, String outcome) {

  /** An answer Levee gave without an upstream call. */
  static Sent local(int status, String outcome) {
    return new Sent(status, null, 0, false, outcome);
  }

  /**
   * The record of an answer whose writing failed ({@code failure}; null for an {@link Error}): the
   * status already sent, else the 500 the server answers a bug with; the target and calls of what
   * going upstream came to; outcome {@code error answering <exception's class>}.
   */
  static Sent unsent(Outcome outcome, int statusSent, Throwable failure) {
    Target target = switch (outcome) {
      case Outcome.Answered json -> json.answered().target();
      case Outcome.Streamed stream -> stream.first().target();
      case Outcome.Rejected rejected -> rejected.target();
      case Outcome.Exhausted exhausted -> exhausted.failure().refused();
      case Outcome.Cancelled cancelled -> null;
    };
    boolean fallback = switch (outcome) {
      case Outcome.Answered json -> json.answered().fallback();
      case Outcome.Streamed stream -> stream.first().fallback();
      default -> false;
    };
    return new Sent(statusSent != 0 ? statusSent : 500, target, outcome.calls(), fallback,
        "error answering " + (failure == null ? "Error" : failure.getClass().getSimpleName()));
  }
}
