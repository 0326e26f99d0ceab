package dev.levee.gateway.pipeline;

import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.core.route.RouteRequest;
import dev.levee.gateway.AliasChain;
import dev.levee.gateway.config.Feature;

/**
 * A client request that passed ingress: what every later stage reads about it.
 *
 * @param id Levee's id for this request (access log, {@code x-levee-request-id}, {@code
 *     request_id} in Levee's own error bodies)
 * @param request the request as it arrived: path, query, headers, parsed body
 * @param alias what its {@code model} resolved to
 * @param feature the feature it belongs to ({@code x-levee-feature} when configured, else
 *     {@code default})
 * @param config that feature's settings
 * @param tenant the tenant partition (a hash of the API key, refined by {@code x-levee-tenant};
 *     never the key itself): cache entries, and later queued work and limits, are per tenant
 * @param route what the scoring router knows of it (task, estimated input tokens, latency
 *     budget, preference), when its alias is routed by score and it asks for an answer; else null
 */
public record InboundRequest(String id, OriginalRequest request, AliasChain alias, String feature, Feature config,
    String tenant, RouteRequest route) {

  /** A request the scoring router does not order. */
  public InboundRequest(String id, OriginalRequest request, AliasChain alias, String feature, Feature config,
      String tenant) {
    this(id, request, alias, feature, config, tenant, null);
  }

  public MessagesRequest body() {
    return request.body();
  }

  public String path() {
    return request.path();
  }

  /**
   * Whether the client asked for a stream: {@code "stream": true} on {@code /v1/messages}. A token
   * count is never one, whatever its body says: it goes upstream as a JSON call, and the upstream
   * judges the field (the Anthropic API refuses parameters a count does not take with a 400).
   */
  public boolean stream() {
    return asksForAnswer() && request.body().stream();
  }

  /**
   * The request's priority, 0 (lowest) to 9: {@code x-levee-priority} when it is one digit, else
   * the feature's ({@link Feature#queuePriority()}). Degraded mode queues requests under the
   * feature's {@code immediate-priority}; queued work runs highest priority first.
   */
  public int priority() {
    String named = dev.levee.gateway.cache.HeaderValues.first(request.headers(), "x-levee-priority");
    return named != null && named.strip().matches("[0-9]") ? Integer.parseInt(named.strip()) : config.queuePriority();
  }

  /** Whether this asks for a model answer ({@code /v1/messages}), not a token count. */
  public boolean asksForAnswer() {
    return path().equals("/v1/messages");
  }

  @Override
  public String toString() {
    return "InboundRequest[" + id + " " + request + " feature=" + feature + "]";
  }
}
