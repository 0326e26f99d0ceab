package dev.levee.gateway.jobs;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.TargetReports;
import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Headers;
import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.anthropic.upstream.Upstreams;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Failure;
import dev.levee.gateway.Aliases;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a job as an interactive JSON request runs: its route's fallback chain, the shared
 * breakers and retry budget, one deadline. The one place queued work meets the request path:
 * when the pipeline's stages change, only this class follows.
 *
 * <p>An answer (any status the chain settled on: a 200, or a client error it never retries) is
 * {@link Finished}; a chain that ran out of targets or time is {@link RetryLater}.
 */
public final class ChainJobExecutor implements JobExecutor {

  private final Aliases routes;
  private final FallbackChain chain;
  private final Upstreams upstreams;
  private final Duration deadline;

  public ChainJobExecutor(Aliases routes, FallbackChain chain, Upstreams upstreams, Duration deadline) {
    this.routes = routes;
    this.chain = chain;
    this.upstreams = upstreams;
    this.deadline = deadline;
  }

  @Override
  public Outcome execute(JobRequest job, String apiKey) {
    MessagesRequest body;
    try {
      body = MessagesRequest.parse(job.body());
    } catch (MessagesRequest.InvalidRequestException e) {
      return finished(ApiError.invalidRequest(e.getMessage()));
    }
    Map<String, List<String>> headers = new HashMap<>(job.headers());
    if (apiKey != null) {
      headers.put("x-api-key", List.of(apiKey));
    }
    OriginalRequest request = new OriginalRequest(job.path(), job.query(), headers, body);
    dev.levee.gateway.AliasChain route = routes.resolve(body.model());
    ChainResult<Reply> result = chain.execute(route.targets(), Deadline.after(deadline, upstreams.ticker()), false,
        upstreams.json(request, new Cancellation()));
    return switch (result) {
      case ChainResult.Answered<Reply> answered -> {
        answered.completion().success();
        Reply reply = answered.response();
        Map<String, List<String>> out = new HashMap<>(Headers.toClient(reply.headers()));
        out.put("x-levee-model", List.of(answered.target().id()));
        out.put("x-levee-fallback", List.of(Boolean.toString(answered.fallback())));
        yield new Finished(new JobResult(reply.status(), out, reply.body()));
      }
      case ChainResult.Rejected<Reply> rejected -> {
        Reply reply = rejected.response();
        if (reply != null && reply.body() != null) {
          yield new Finished(new JobResult(reply.status(), Headers.toClient(reply.headers()), reply.body()));
        }
        Failure f = rejected.failure();
        yield finished(ApiError.of(f, f.message()));
      }
      case ChainResult.Exhausted<Reply> exhausted -> new RetryLater(TargetReports.describe(exhausted.targets()),
          exhausted.retryAfter().orElse(null));
      case ChainResult.Cancelled<Reply> cancelled -> new RetryLater("cancelled", null);
    };
  }

  private static Finished finished(ApiError error) {
    return new Finished(new JobResult(error.status(), Map.of("content-type", List.of("application/json")),
        error.toBytes(null)));
  }
}
