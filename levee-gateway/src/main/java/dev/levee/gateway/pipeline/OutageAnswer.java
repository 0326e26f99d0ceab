package dev.levee.gateway.pipeline;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.HeaderValues;
import dev.levee.gateway.jobs.OutageQueue;
import java.util.Optional;

/**
 * The answer to a request queued on an outage ({@code queue.on-outage}): the outage error with
 * status 503, its {@code error.job_id} naming the job, {@code x-levee-job} the same, and the
 * {@code retry-after} already set. Poll {@code GET /v1/levee/jobs/{id}} for the answer.
 */
final class OutageAnswer {

  private OutageAnswer() {}

  /** Queues {@code in} when its feature queues on an outage; true when the client was answered. */
  static boolean queued(OutageQueue outage, InboundRequest in, String feature, ApiError error, ClientResponse client) {
    if (outage == null) {
      return false;
    }
    String priority = HeaderValues.first(in.request().headers(), "x-levee-priority");
    int p = priority != null && priority.strip().matches("[0-9]") ? Integer.parseInt(priority.strip()) : 5;
    Optional<String> job = outage.offer(CacheKey.tenantOf(in.request().headers()), feature, in.body().model(),
        in.body().stream(), in.path(), in.request().query(), in.request().headers(), in.body().body(), p);
    if (job.isEmpty()) {
      return false;
    }
    ObjectNode body = new ApiError(503, error.type(), error.message()
        + " The request was queued as job " + job.get() + "; GET /v1/levee/jobs/" + job.get() + " returns its answer.")
        .toJson(in.id());
    ((ObjectNode) body.get("error")).put("job_id", job.get());
    client.header("x-levee-job", job.get());
    client.send(503, "application/json", Json.bytes(body));
    return true;
  }
}
