package dev.levee.gateway.pipeline;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.StaticAnswer;
import dev.levee.gateway.config.FailMode;
import dev.levee.gateway.jobs.OutageQueue;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The answer to a request kept as a job ({@code on-outage: queue}: every target failed, the
 * feature at T3, or degraded mode), {@code x-levee-job} naming the job: for a fail-closed feature
 * the error with status 503 and {@code error.job_id} (the {@code retry-after} is the responder's);
 * for a fail-open feature a well-formed message with the feature's {@code queued-text}. Poll
 * {@code GET /v1/levee/jobs/{id}} for the answer.
 *
 * @param job the job's id
 * @param status the HTTP status to answer with
 * @param body the JSON body
 */
record OutageAnswer(String job, int status, byte[] body) {

  /** Queues {@code in} when its feature queues on an outage (a null queue never does). */
  static Optional<OutageAnswer> queue(OutageQueue outage, InboundRequest in, ApiError error) {
    if (outage == null) {
      return Optional.empty();
    }
    return outage.offer(CacheKey.tenantOf(in.request().headers()), in.feature(), in.body().model(),
            in.stream(), in.path(), in.request().query(), in.request().headers(), in.body().body(), in.priority())
        .map(job -> answer(job, in, error));
  }

  /**
   * The error's message, ended as a sentence, then where the queued job's answer will be: {@code
   * "… Last error: connection refused. The request was queued as job …"}.
   */
  static String queuedMessage(String message, String job) {
    String m = message.strip();
    String sentence = m.isEmpty() ? "" : m + (m.endsWith(".") || m.endsWith("!") || m.endsWith("?") ? " " : ". ");
    return sentence + "The request was queued as job " + job + "; GET /v1/levee/jobs/" + job + " returns its answer.";
  }

  private static OutageAnswer answer(String job, InboundRequest in, ApiError error) {
    if (in.config().failMode() == FailMode.OPEN) { // a well-formed message the client can show now
      String text = in.config().queuedText().replace("{job}", job);
      return new OutageAnswer(job, 200, new StaticAnswer(text, ThreadLocalRandom.current()).json(in.body().model()));
    }
    ObjectNode body = new ApiError(503, error.type(), queuedMessage(error.message(), job)).toJson(in.id());
    ((ObjectNode) body.get("error")).put("job_id", job);
    return new OutageAnswer(job, 503, Json.bytes(body));
  }
}
