package dev.levee.gateway.pipeline;

import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;

/**
 * One line of the access log: what was asked, which target answered after how many calls, in
 * which tier, and how it ended. Never headers or bodies (they hold API keys and user data).
 *
 * @param id Levee's request id
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
 * @param route the scoring router's candidates and scores ({@code x-levee-route}), or null when
 *     the request was not routed by score
 */
record AccessRecord(String id, String path, String alias, boolean stream, Tier tier, int status, Target target,
    int calls, boolean fallback, long millis, String outcome, String route) {

  AccessRecord(String id, String path, String alias, boolean stream, Tier tier, int status, Target target,
      int calls, boolean fallback, long millis, String outcome) {
    this(id, path, alias, stream, tier, status, target, calls, fallback, millis, outcome, null);
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
