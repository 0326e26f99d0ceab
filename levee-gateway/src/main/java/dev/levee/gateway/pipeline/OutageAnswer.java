package dev.levee.gateway.pipeline;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.HeaderValues;
import dev.levee.gateway.cache.StaticAnswer;
import dev.levee.gateway.jobs.OutageQueue;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The answer to a request queued on an outage ({@code queue.on-outage}), {@code x-levee-job}
 * naming the job: for a fail-closed feature the outage error with status 503 and {@code
 * error.job_id} (and the {@code retry-after} already set); for a fail-open feature a well-formed
 * message saying the request was queued. Poll {@code GET /v1/levee/jobs/{id}} for the answer.
 */
final class OutageAnswer {

  private OutageAnswer() {}

  /** Queues {@code in} when its feature queues on an outage; true when the client was answered. */
  static boolean queued(OutageQueue outage, InboundRequest in, Admission.Ticket ticket, ApiError error,
      ClientResponse client) {
    String feature = ticket.feature();
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
    client.header("x-levee-job", job.get());
    if (ticket.config().failMode().equals("open")) { // a well-formed message the client can show now
      String text = "Your request could not be answered right now. It was queued as job " + job.get()
          + " and will be answered when the assistant is back.";
      client.send(200, "application/json",
          new StaticAnswer(text, ThreadLocalRandom.current()).json(in.body().model()));
      return true;
    }
    ObjectNode body = new ApiError(503, error.type(), error.message()
        + " The request was queued as job " + job.get() + "; GET /v1/levee/jobs/" + job.get() + " returns its answer.")
        .toJson(in.id());
    ((ObjectNode) body.get("error")).put("job_id", job.get());
    client.send(503, "application/json", Json.bytes(body));
    return true;
  }
}
