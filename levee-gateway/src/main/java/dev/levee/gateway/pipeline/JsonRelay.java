package dev.levee.gateway.pipeline;

import dev.levee.anthropic.upstream.Headers;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.ChainResult;

/** Relays a JSON answer: the upstream's status, headers and body, byte for byte. */
final class JsonRelay {

  private JsonRelay() {}

  static void relay(ChainResult.Answered<Reply> answered, ClientResponse client) {
    Reply reply = answered.response();
    answered.completion().success();
    client.headers(Headers.toClient(reply.headers()));
    client.send(reply.status(), reply.contentType(), reply.body());
  }
}
