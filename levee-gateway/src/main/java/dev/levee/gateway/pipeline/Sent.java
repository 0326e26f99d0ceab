package dev.levee.gateway.pipeline;

import dev.levee.core.chain.Target;

/**
 * What the responder sent the client, for the record.
 *
 * @param status the HTTP status sent (499 when the client went away before any was)
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
   * This record as the client took it, for an answer written whole ({@link ClientResponse#send}):
   * unchanged, unless the exchange was aborted — its write failed — when the outcome becomes {@code
   * shutdown} (the stopping server ended it, {@link ClientResponse#endedByShutdown}), {@code
   * send_timeout} (the client took no byte of it for {@code server.send-timeout}: it stopped
   * reading, {@link ClientResponse#endedBySendTimeout}) or {@code client_gone} (it went away),
   * followed by what it was (an upstream answer's {@code ok} dropped: {@code client_gone
   * upstream_id=req_…}, {@code send_timeout cache_hit}). The status stays the one sent: its head
   * went out, as a stream's {@code status=200 outcome=stream_client_gone} says.
   */
  Sent written(ClientResponse client) {
    if (!client.aborted()) {
      return this;
    }
    String was = outcome.equals("ok") ? "" : outcome.startsWith("ok ") ? outcome.substring(2) : " " + outcome;
    String why = client.endedByShutdown() ? "shutdown" : client.endedBySendTimeout() ? "send_timeout" : "client_gone";
    return new Sent(status, target, calls, fallback, why + was);
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
