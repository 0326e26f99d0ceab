package dev.levee.gateway.pipeline;

import dev.levee.anthropic.message.MessagesRequest;
import java.util.List;
import java.util.Map;

/**
 * A client request that passed ingress: parsed enough to route, otherwise raw.
 *
 * @param id Levee's id for this request (logs and {@code x-levee-request-id})
 * @param path the request path, e.g. {@code /v1/messages}
 * @param query the raw query string without {@code ?}, or null
 * @param headers the client's headers in arrival order (names as sent)
 * @param body the parsed body
 * @param startNanos the ticker reading when the request arrived
 */
public record InboundRequest(
    String id, String path, String query, Map<String, List<String>> headers, MessagesRequest body, long startNanos) {

  @Override
  public String toString() {
    return "InboundRequest[" + id + " " + path + " " + body + "]"; // never the headers: they hold the key
  }
}
