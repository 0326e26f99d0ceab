package dev.levee.gateway.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.anthropic.server.ServerIo;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.pipeline.LeveeErrors;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.function.Supplier;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /v1/levee/jobs/{id}}: a queued request's state and, once it has ended, the answer the
 * API gave — {@code {"id", "type": "levee_job", "state", "attempts", "created_at", "expires_at",
 * "last_error", "result": {"status", "headers", "body"}}}, the body as JSON when it is JSON. Only
 * the tenant that queued it sees it; any other id answers 404 {@code not_found_error} ({@code
 * not_found}). A path under {@link #PREFIX} that names no job — no id ({@code /v1/levee/jobs/}),
 * or more segments after it — is answered as any path Levee does not serve: 404 {@code
 * not_found_error} ({@code unknown_path}), whatever its method.
 */
public final class JobsHandler {

  /** The path prefix served. */
  public static final String PREFIX = "/v1/levee/jobs/";

  private final JobStore store;
  private final Supplier<PauseGate.Paused> gate;
  private final InstantSource wall;

  /** Without a gate: {@code waiting_reason} never names a hold. */
  public JobsHandler(JobStore store) {
    this(store, () -> PauseGate.Paused.NONE, InstantSource.system());
  }

  /**
   * @param gate what the dispatcher holds now (the same {@link PauseGate} it claims with)
   */
  public JobsHandler(JobStore store, Supplier<PauseGate.Paused> gate, InstantSource wall) {
    this.store = store;
    this.gate = gate;
    this.wall = wall;
  }

  public void handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String id = path.substring(PREFIX.length());
    if (id.isEmpty() || id.indexOf('/') >= 0) { // names no job: answered as any path Levee does not serve
      LeveeErrors.send(response, callback, LeveeErrors.unknownPath(request.getMethod(), path));
      return;
    }
    if (!request.getMethod().equals("GET")) {
      response.getHeaders().put("allow", "GET");
      LeveeErrors.send(response, callback, new ApiError(405, "invalid_request_error",
          ClientText.shown(request.getMethod()) + " is not allowed on " + ClientText.shown(path))
          .because(RefusalReason.METHOD_NOT_ALLOWED));
      return;
    }
    Optional<Job> job = store.job(CacheKey.tenantOf(ServerIo.headers(request)), id);
    if (job.isEmpty()) {
      LeveeErrors.send(response, callback, ApiError.notFound("No job with id '" + ClientText.shown(id) + "'")
          .because(RefusalReason.NOT_FOUND));
      return;
    }
    ObjectNode view = view(job.get());
    String waiting = waitingReason(job.get(), gate.get(), wall.instant());
    if (waiting == null) {
      view.putNull("waiting_reason");
    } else {
      view.put("waiting_reason", waiting);
    }
    String callbackState = store.callbackState(id);
    if (callbackState == null) { // no callback-url for its feature, or none owed yet
      view.putNull("callback_state");
    } else {
      view.put("callback_state", callbackState);
    }
    ServerIo.json(response, callback, 200, Json.bytes(view));
  }

  /**
   * Why a queued job is not running now: held by the pause gate (its alias's targets all open or
   * cooling, its feature and alias at a tier that holds queued work — with the tier's reason), or
   * waiting for its retry time, or ready and waiting for a worker. Null for a job that is not
   * {@code queued}. {@code last_error} says what its last try came to; this says why it waits now.
   */
  static String waitingReason(Job job, PauseGate.Paused paused, Instant now) {
    if (job.state() != JobState.QUEUED) {
      return null;
    }
    var held = paused.why(job.feature(), job.alias());
    if (held.isPresent()) {
      return held.get();
    }
    if (job.runAfter() != null && job.runAfter().isAfter(now)) {
      return "waiting to be tried again at " + job.runAfter() + " (after " + job.attempts()
          + (job.attempts() == 1 ? " try" : " tries") + "; queue.retry-delay or the upstream's retry-after)";
    }
    return "ready: waiting for a worker";
  }

  static ObjectNode view(Job job) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.put("id", job.id());
    out.put("type", "levee_job");
    out.put("state", job.state().wire());
    out.put("attempts", job.attempts());
    out.put("created_at", job.createdAt().toString());
    out.put("expires_at", job.expiresAt().toString());
    if (job.lastError() == null) {
      out.putNull("last_error");
    } else {
      out.put("last_error", job.lastError());
    }
    if (job.result() == null) {
      out.putNull("result");
    } else {
      ObjectNode result = out.putObject("result");
      result.put("status", job.result().status());
      result.set("headers", Json.MAPPER.valueToTree(job.result().headers()));
      JsonNode body = Json.tryParse(job.result().body());
      if (body != null) {
        result.set("body", body);
      } else {
        result.put("body", new String(job.result().body(), StandardCharsets.UTF_8));
      }
    }
    return out;
  }
}
