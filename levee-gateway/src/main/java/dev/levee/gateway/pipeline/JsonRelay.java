package dev.levee.gateway.pipeline;

import dev.levee.core.chain.ChainResult;

/** Relays a JSON answer: the upstream's status, headers and body, byte for byte. */
final class JsonRelay {

  private JsonRelay() {}

  static void relay(ChainResult.Answered<UpstreamReply> answered, ClientResponse client) {
    UpstreamReply reply = answered.response();
    answered.completion().success();
    client.headers(dev.levee.anthropic.upstream.Headers.toClient(reply.headers()));
    String contentType = reply.headers().getOrDefault("content-type", java.util.List.of("application/json")).get(0);
    client.send(reply.status(), contentType, reply.body());
  }
}
