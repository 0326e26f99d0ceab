package dev.levee.gateway;

import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Endpoint;
import dev.levee.anthropic.upstream.Headers;
import dev.levee.anthropic.upstream.UpstreamClient;
import dev.levee.anthropic.upstream.UpstreamRequest;
import dev.levee.anthropic.upstream.UpstreamResponse;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One {@code GET} of the Models API on an upstream, with the client's headers as the Messages API
 * forwards them ({@link Headers#toUpstream}: the upstream's own key when it has one): metadata, so
 * one call, never retried or cached here. Thread-safe.
 */
final class UpstreamGet {

  /** How long a models call may take, whole answer included. */
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private static final int MAX_BODY = 8 << 20;

  /** An upstream's whole answer. */
  record Answer(int status, Map<String, List<String>> headers, byte[] body) {}

  private final UpstreamClient client;

  UpstreamGet(UpstreamClient client) {
    this.client = client;
  }

  /**
   * As {@link #get(Endpoint, String, Map, Duration)} within {@link #TIMEOUT}.
   *
   * @throws IOException when the upstream cannot be reached or its answer read
   */
  Answer get(Endpoint endpoint, String pathAndQuery, Map<String, List<String>> clientHeaders)
      throws IOException, InterruptedException {
    return get(endpoint, pathAndQuery, clientHeaders, TIMEOUT);
  }

  /**
   * @param pathAndQuery e.g. {@code /v1/models?limit=5}, appended to the endpoint's base URL
   * @param clientHeaders the client's request headers, as received
   * @param timeout how long the call may take
   * @throws IOException when the upstream cannot be reached, its answer read, or it took too long
   */
  Answer get(Endpoint endpoint, String pathAndQuery, Map<String, List<String>> clientHeaders, Duration timeout)
      throws IOException, InterruptedException {
    UpstreamRequest call = new UpstreamRequest(URI.create(endpoint.baseUrl() + pathAndQuery), "GET",
        Headers.toUpstream(clientHeaders, endpoint.apiKey()), null);
    try (UpstreamResponse answer = client.send(call, timeout, new Cancellation())) {
      return new Answer(answer.status(), answer.headers(), answer.readBody(MAX_BODY));
    }
  }
}
