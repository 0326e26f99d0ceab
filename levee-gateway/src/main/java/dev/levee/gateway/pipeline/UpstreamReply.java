package dev.levee.gateway.pipeline;

import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.stream.UpstreamStream;
import java.util.List;
import java.util.Map;

/**
 * What one upstream call gave back: a whole body (JSON answers and every error), or an open
 * stream that reached its commit point with the events held back until then.
 *
 * @param status the HTTP status
 * @param headers the upstream's response headers (lower-case names)
 * @param body the whole body, or null for an open stream
 * @param stream the open stream, or null
 * @param held events read before the commit point, to send first (empty for JSON)
 */
record UpstreamReply(int status, Map<String, List<String>> headers, byte[] body, UpstreamStream stream, List<SseEvent> held) {

  static UpstreamReply whole(int status, Map<String, List<String>> headers, byte[] body) {
    return new UpstreamReply(status, headers, body, null, List.of());
  }

  static UpstreamReply open(Map<String, List<String>> headers, UpstreamStream stream, List<SseEvent> held) {
    return new UpstreamReply(200, headers, null, stream, List.copyOf(held));
  }
}
