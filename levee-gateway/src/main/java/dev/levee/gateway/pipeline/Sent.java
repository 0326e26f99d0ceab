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
}
