package dev.levee.gateway.jobs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.anthropic.server.ServerIo;
import dev.levee.gateway.pipeline.LeveeErrors;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.function.Supplier;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The operator's view of the job store, every tenant's jobs, behind the admin token ({@code
 * AdminHandler} checks it first):
 *
 * <ul>
 *   <li>{@code GET /admin/jobs?state=queued,running&alias=…&tenant=…&feature=…&limit=20&after_id=job_…}:
 *       newest first, {@code {"data": [job…], "has_more", "first_id", "last_id"}}, paged as
 *       Anthropic's list endpoints are ({@code after_id}: older, {@code before_id}: newer); the
 *       parameters: {@link JobListQuery}. A listed job carries no bodies: {@code result_status}
 *       stands for its result.
 *   <li>{@code GET /admin/jobs/{id}}: one job, with its result.
 *   <li>{@code POST /admin/jobs/{id}/cancel}: a queued job ends {@code cancelled} at once; a running
 *       one too, and its try is stopped (at once on this gateway, at the next lease renewal on
 *       another) and nothing it returns is kept ({@link JobStore#cancel}). Idempotent: a cancelled
 *       job answers 200 as it is. A job that ended otherwise answers 409 {@code
 *       invalid_request_error}.
 * </ul>
 *
 * Bad input answers 400 {@code invalid_request_error} naming the parameter (an unknown, empty or
 * repeated one included); an unknown id 404 {@code not_found_error}; a path of this API asked with
 * another method 405 ({@link #allowed}, answered by {@code AdminHandler}).
 */
public final class JobsAdmin {

  /** The path prefix served. */
  public static final String PREFIX = "/admin/jobs";

  private final JobStore store;
  private final JobWorkers workers;
  private final Supplier<PauseGate.Paused> gate;
  private final InstantSource wall;

  /**
   * @param workers this gateway's pool, whose run of a cancelled job stops at once
   * @param gate what the dispatcher holds now, for {@code waiting_reason}
   */
  public JobsAdmin(JobStore store, JobWorkers workers, Supplier<PauseGate.Paused> gate, InstantSource wall) {
    this.store = store;
    this.workers = workers;
    this.gate = gate;
    this.wall = wall;
  }

  /**
   * The method {@code path} takes ({@code "GET"} or {@code "POST"}), or null when it is no path of
   * this API: the caller answers 404, or 405 with {@code allow} for another method.
   */
  public static String allowed(String path) {
    if (path.equals(PREFIX)) {
      return "GET";
    }
    if (!path.startsWith(PREFIX + "/")) {
      return null;
    }
    String rest = path.substring(PREFIX.length() + 1);
    if (rest.endsWith("/cancel") && rest.indexOf('/') == rest.length() - "/cancel".length()) {
      return "POST";
    }
    return rest.isEmpty() || rest.contains("/") ? null : "GET";
  }

  /** Answers {@code path}, which {@link #allowed} takes with the request's method. */
  public void handle(String path, Request request, Response response, Callback callback) {
    if (path.equals(PREFIX)) {
      list(request, response, callback);
      return;
    }
    String rest = path.substring(PREFIX.length() + 1);
    if (rest.endsWith("/cancel")) {
      String id = rest.substring(0, rest.length() - "/cancel".length());
      if (checkId(id, response, callback)) {
        cancel(id, response, callback);
      }
      return;
    }
    if (checkId(rest, response, callback)) {
      Optional<Job> job = store.anyTenantsJob(rest);
      if (job.isEmpty()) {
        LeveeErrors.send(response, callback, notFound(rest));
      } else {
        ServerIo.json(response, callback, 200, Json.bytes(full(job.get())));
      }
    }
  }

  private void list(Request request, Response response, Callback callback) {
    JobListQuery query;
    switch (JobListQuery.parse(Request.extractQueryParameters(request))) {
      case JobListQuery.Invalid invalid -> {
        LeveeErrors.send(response, callback, invalid.error());
        return;
      }
      case JobListQuery.Valid valid -> query = valid.query();
    }
    Optional<JobStore.Page> page = store.list(query.filter(), query.afterId(), query.beforeId(), query.limit());
    if (page.isEmpty()) {
      String cursor = query.afterId() != null ? "after_id" : "before_id";
      String id = query.afterId() != null ? query.afterId() : query.beforeId();
      LeveeErrors.send(response, callback, ApiError.notFound(cursor + ": no job with id '" + id + "'")
          .because(RefusalReason.NOT_FOUND));
      return;
    }
    PauseGate.Paused paused = gate.get();
    Instant now = wall.instant();
    ObjectNode body = Json.MAPPER.createObjectNode();
    ArrayNode data = body.putArray("data");
    page.get().jobs().forEach(job -> data.add(summary(job, paused, now)));
    body.put("has_more", page.get().hasMore());
    if (page.get().jobs().isEmpty()) {
      body.putNull("first_id");
      body.putNull("last_id");
    } else {
      body.put("first_id", page.get().jobs().getFirst().id());
      body.put("last_id", page.get().jobs().getLast().id());
    }
    ServerIo.json(response, callback, 200, Json.bytes(body));
  }

  private void cancel(String id, Response response, Callback callback) {
    JobStore.Cancel cancel = store.cancel(id, wall.instant());
    switch (cancel.kind()) {
      case NOT_FOUND -> LeveeErrors.send(response, callback, notFound(id));
      case ENDED -> LeveeErrors.send(response, callback, new ApiError(409, "invalid_request_error", "job " + id
          + " already ended " + cancel.was().wire() + "; only a queued or running job can be cancelled")
          .because(RefusalReason.JOB_ENDED));
      case CANCELLED, ALREADY_CANCELLED -> {
        if (cancel.kind() == JobStore.Cancel.Kind.CANCELLED) {
          if (cancel.was() == JobState.RUNNING) {
            workers.stop(id); // here at once; another gateway's run stops at its next renewal
          }
          workers.wake(); // a callback may be owed
        }
        ServerIo.json(response, callback, 200, Json.bytes(full(cancel.job())));
      }
    }
  }

  /** 400 unless {@code id} (in the path) is shaped like a job id; true when it is. */
  private static boolean checkId(String id, Response response, Callback callback) {
    if (JobListQuery.ID.matcher(id).matches()) {
      return true;
    }
    LeveeErrors.send(response, callback, ApiError.invalidRequest(JobListQuery.notAnId("the job id", id))
        .because(RefusalReason.BAD_PARAMETER));
    return false;
  }

  private static ApiError notFound(String id) {
    return ApiError.notFound("No job with id '" + id + "'").because(RefusalReason.NOT_FOUND);
  }

  /** A listed job: who and what, where it is, no bodies. */
  private static ObjectNode summary(Job job, PauseGate.Paused paused, Instant now) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.put("id", job.id());
    out.put("type", "levee_job");
    out.put("state", job.state().wire());
    out.put("tenant", job.tenant());
    out.put("feature", job.feature());
    out.put("alias", job.alias());
    out.put("priority", job.priority());
    putOrNull(out, "batch_id", job.batchId());
    putOrNull(out, "custom_id", job.customId());
    out.put("attempts", job.attempts());
    out.put("created_at", job.createdAt().toString());
    out.put("expires_at", job.expiresAt().toString());
    putOrNull(out, "last_error", job.lastError());
    putOrNull(out, "waiting_reason", JobsHandler.waitingReason(job, paused, now));
    if (job.result() == null) {
      out.putNull("result_status");
    } else {
      out.put("result_status", job.result().status());
    }
    return out;
  }

  /** One job as its client sees it ({@link JobsHandler}), with who and what. */
  private ObjectNode full(Job job) {
    ObjectNode out = JobsHandler.view(job);
    out.put("tenant", job.tenant());
    out.put("feature", job.feature());
    out.put("alias", job.alias());
    out.put("priority", job.priority());
    putOrNull(out, "batch_id", job.batchId());
    putOrNull(out, "custom_id", job.customId());
    putOrNull(out, "waiting_reason", JobsHandler.waitingReason(job, gate.get(), wall.instant()));
    putOrNull(out, "callback_state", store.callbackState(job.id()));
    return out;
  }

  private static void putOrNull(ObjectNode out, String name, String value) {
    if (value == null) {
      out.putNull(name);
    } else {
      out.put(name, value);
    }
  }
}
