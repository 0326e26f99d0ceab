package dev.levee.gateway.pipeline;

import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.anthropic.upstream.OriginalRequest;

/**
 * A client request that passed ingress.
 *
 * @param id Levee's id for this request (access log and {@code x-levee-request-id})
 * @param request the request as it arrived: path, query, headers, parsed body
 */
public record InboundRequest(String id, OriginalRequest request) {

  public MessagesRequest body() {
    return request.body();
  }

  public String path() {
    return request.path();
  }

  @Override
  public String toString() {
    return "InboundRequest[" + id + " " + request + "]";
  }
}
