package dev.levee.gateway;

import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.TransportError;
import dev.levee.anthropic.server.ServerIo;
import dev.levee.anthropic.upstream.Endpoint;
import dev.levee.anthropic.upstream.Headers;
import dev.levee.gateway.pipeline.LeveeErrors;
import dev.levee.gateway.pipeline.LeveeHeaders;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET} and {@code HEAD} of {@code /v1/models} and {@code /v1/models/{id}}: the list of the
 * aliases and the upstream's models ({@link ModelList}); a configured alias's own model object
 * ({@link AliasModels}); any other id relayed to the first upstream as it is (an id it does not
 * know gets its 404 {@code not_found_error}), one call. {@code HEAD} answers as {@code GET} does,
 * status and headers, without the body (the upstream is asked with a {@code GET}). Nothing here is
 * retried or cached: it is metadata, not an answer.
 */
final class PassThrough {

  private static final String MODEL_PREFIX = "/v1/models/";
  /**
   * The request attribute saying its answer is the upstream's, relayed ({@link #relayed}): the
   * upstream's {@code request-id}, or {@code ""} when its answer had none ({@link #upstreamId}).
   */
  private static final String RELAYED = PassThrough.class.getName() + ".relayed";

  private final Endpoint upstream;
  private final UpstreamGet get;
  private final AliasModels aliases;
  private final ModelList list;

  PassThrough(Endpoint upstream, UpstreamGet get, AliasModels aliases, ModelList list) {
    this.upstream = upstream;
    this.get = get;
    this.aliases = aliases;
    this.list = list;
  }

  void handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String query = request.getHttpURI().getQuery();
    Map<String, List<String>> headers = ServerIo.headers(request);
    try {
      if (path.equals("/v1/models")) {
        ModelList.Page page = list.page(query, headers);
        if (page.error() != null) {
          LeveeErrors.send(response, callback, page.error()); // named by the exchange's id, as Levee's errors are
          return;
        }
        if (page.reason() != null) {
          response.getHeaders().put(LeveeHeaders.REASON, page.reason());
        }
        send(response, callback, page.status(), page.upstreamHeaders(), page.body());
        return;
      }
      if (path.startsWith(MODEL_PREFIX)) { // a configured alias is Levee's to describe; the upstream would answer 404
        var alias = aliases.model(path.substring(MODEL_PREFIX.length()), headers, true);
        if (alias.isPresent()) {
          idWhereTheSdksLook(response);
          ServerIo.json(response, callback, 200, Json.bytes(alias.get()));
          return;
        }
      }
      UpstreamGet.Answer answer = get.get(upstream, request.getHttpURI().getPath() + (query == null ? "" : "?" + query),
          headers);
      send(response, callback, answer.status(), answer.headers(), answer.body());
    } catch (IOException e) {
      LeveeErrors.send(response, callback, new ApiError(502, "api_error", "the upstream could not be reached: "
          + TransportError.describe(e)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      callback.failed(e);
    }
  }

  /**
   * Whether {@code request} was answered with the upstream's answer, or a page made of it (its 4xx
   * is the upstream's own refusal, relayed as it came: not Levee's).
   */
  static boolean relayed(Request request) {
    return request.getAttribute(RELAYED) != null;
  }

  /**
   * The upstream's own id ({@code request-id}) of the answer relayed to {@code request}, which the
   * answer keeps in its {@code request-id} header, for the access log's {@code upstream_id=}; null
   * when the answer was Levee's own (an alias, a list page Levee put together) or the upstream sent none.
   */
  static String upstreamId(Request request) {
    return request.getAttribute(RELAYED) instanceof String id && !id.isEmpty() ? id : null;
  }

  /** The status, the upstream's headers as a relay returns them ({@link Headers#toClient}), and the body (none for HEAD: Jetty leaves it out). */
  private static void send(Response response, Callback callback, int status, Map<String, List<String>> upstreamHeaders,
      byte[] body) {
    List<String> upstreamId = upstreamHeaders.get("request-id"); // lower-case names, as every upstream answer's
    response.getRequest().setAttribute(RELAYED, upstreamId == null || upstreamId.isEmpty() ? "" : upstreamId.getFirst());
    response.setStatus(status);
    Headers.toClient(upstreamHeaders).forEach((name, values) -> values.forEach(v -> response.getHeaders().add(name, v)));
    if (!response.getHeaders().contains("content-type")) {
      response.getHeaders().put("content-type", "application/json");
    }
    idWhereTheSdksLook(response);
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  /**
   * Levee's id of the exchange in {@code request-id}, where the official SDKs read an answer's id,
   * unless the upstream's answer brought its own (kept: Anthropic's id, for their support). Also for
   * the answers Levee makes itself outside the pipeline (the batches API: {@link HttpDispatcher}).
   */
  static void idWhereTheSdksLook(Response response) {
    String own = response.getHeaders().get(LeveeHeaders.REQUEST_ID);
    if (own != null && !response.getHeaders().contains(LeveeHeaders.ANSWER_REQUEST_ID)) {
      response.getHeaders().put(LeveeHeaders.ANSWER_REQUEST_ID, own);
    }
  }
}
