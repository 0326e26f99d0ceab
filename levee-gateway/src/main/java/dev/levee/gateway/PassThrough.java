package dev.levee.gateway;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.server.ServerIo;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Endpoint;
import dev.levee.anthropic.upstream.Headers;
import dev.levee.anthropic.upstream.UpstreamClient;
import dev.levee.anthropic.upstream.UpstreamRequest;
import dev.levee.anthropic.upstream.UpstreamResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /v1/models} and {@code GET /v1/models/{id}}: a configured alias's own model object
 * ({@link AliasModels}); anything else relayed to the first upstream as it is (an id it does not
 * know gets its 404 {@code not_found_error}), one call, so that clients listing models through the gateway keep working. Nothing here
 * is retried or cached: it is metadata, not an answer.
 */
final class PassThrough {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final int MAX_BODY = 8 << 20;

  private static final String MODEL_PREFIX = "/v1/models/";

  private final Endpoint upstream;
  private final UpstreamClient client;
  private final AliasModels aliases;

  PassThrough(Endpoint upstream, UpstreamClient client, AliasModels aliases) {
    this.upstream = upstream;
    this.client = client;
    this.aliases = aliases;
  }

  void handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    if (path.startsWith(MODEL_PREFIX)) { // a configured alias is Levee's to describe; the upstream would answer 404
      var alias = aliases.model(path.substring(MODEL_PREFIX.length()));
      if (alias.isPresent()) {
        ServerIo.json(response, callback, 200, dev.levee.anthropic.Json.bytes(alias.get()));
        return;
      }
    }
    String query = request.getHttpURI().getQuery();
    URI uri = URI.create(upstream.baseUrl() + request.getHttpURI().getPath() + (query == null ? "" : "?" + query));
    UpstreamRequest call = new UpstreamRequest(uri, "GET", Headers.toUpstream(ServerIo.headers(request), upstream.apiKey()), null);
    try (UpstreamResponse answer = client.send(call, TIMEOUT, new Cancellation())) {
      byte[] body = answer.readBody(MAX_BODY);
      response.setStatus(answer.status());
      Headers.toClient(answer.headers()).forEach((name, values) -> values.forEach(v -> response.getHeaders().add(name, v)));
      response.write(true, ByteBuffer.wrap(body), callback);
    } catch (IOException e) {
      ServerIo.error(response, callback, new ApiError(502, "api_error", "the upstream could not be reached: " + dev.levee.anthropic.error.TransportError.describe(e)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      callback.failed(e);
    }
  }
}
