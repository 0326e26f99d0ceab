package dev.levee.anthropic.upstream;

import dev.levee.anthropic.message.TokenUsage;
import dev.levee.anthropic.stream.UpstreamStream;
import java.util.List;
import java.util.Map;

/**
 * What one upstream call gave back: a whole body (JSON answers and every error), or an open
 * stream that reached its commit point (the events read up to it are held by the stream itself,
 * {@link UpstreamStream#next()} returns them first, so that nothing keeps them once relayed).
 *
 * @param status the HTTP status
 * @param headers the upstream's response headers (lower-case names)
 * @param body the whole body, or null for an open stream
 * @param stream the open stream, or null
 * @param finishedMessage whether {@code body} is a finished message, as {@link AnswerShape#check}
 *     found when it read it (the answer cache keeps it without reading it again)
 * @param usage {@code body}'s usage counts as that same check read them; {@link TokenUsage#NONE}
 *     for an error, an open stream, or a body not checked
 */
public record Reply(int status, Map<String, List<String>> headers, byte[] body, UpstreamStream stream,
    boolean finishedMessage, TokenUsage usage) {

  /** A whole body not checked as an answer (an error). */
  public static Reply whole(int status, Map<String, List<String>> headers, byte[] body) {
    return new Reply(status, headers, body, null, false, TokenUsage.NONE);
  }

  /** A whole body that passed its {@link AnswerShape}, with what the check found. */
  public static Reply whole(int status, Map<String, List<String>> headers, byte[] body, AnswerShape.Verdict checked) {
    return new Reply(status, headers, body, null, checked.finished(), checked.usage());
  }

  public static Reply open(Map<String, List<String>> headers, UpstreamStream stream) {
    return new Reply(200, headers, null, stream, false, TokenUsage.NONE);
  }

  /**
   * The upstream's own id of this answer (its {@code request-id} header, what an SDK reports as
   * the request's id for a relayed answer), or null when it sent none.
   */
  public String requestId() {
    List<String> values = headers.get("request-id");
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /** The content type the upstream declared, or {@code application/json}. */
  public String contentType() {
    List<String> values = headers.get("content-type");
    return values == null || values.isEmpty() ? "application/json" : values.get(0);
  }
}
