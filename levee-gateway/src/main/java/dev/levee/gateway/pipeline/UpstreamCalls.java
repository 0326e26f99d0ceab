package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ErrorClassifier;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Endpoint;
import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.anthropic.upstream.UpstreamClient;
import dev.levee.anthropic.upstream.UpstreamResponse;
import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.core.chain.Attempt;
import dev.levee.core.chain.AttemptContext;
import dev.levee.core.chain.AttemptResult;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.Ticker;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.function.Function;

/**
 * The JSON attempt the {@link dev.levee.core.chain.FallbackChain} runs: one upstream call with the
 * target's model, its whole body read within the attempt's time, classified. Never retries on
 * its own. (Streams have their own attempt in {@link dev.levee.anthropic.stream.StreamEngine}.)
 */
final class UpstreamCalls {

  private static final int MAX_BODY = 64 << 20;

  private final Function<Target, Endpoint> endpoints;
  private final UpstreamClient client;
  private final ErrorClassifier classifier;
  private final Watchdog watchdog;
  private final Ticker ticker;

  UpstreamCalls(Function<Target, Endpoint> endpoints, UpstreamClient client, ErrorClassifier classifier,
      Watchdog watchdog, Ticker ticker) {
    this.endpoints = endpoints;
    this.client = client;
    this.classifier = classifier;
    this.watchdog = watchdog;
    this.ticker = ticker;
  }

  /** An attempt that sends {@code in} with each target's model and reads a whole body. */
  Attempt<Reply> json(OriginalRequest in, Cancellation cancellation) {
    return ctx -> {
      long start = ticker.nanos();
      Target target = ctx.target();
      Endpoint endpoint = endpoints.apply(target);
      try (UpstreamResponse response = client.send(in.to(endpoint, in.bodyFor(target.model())),
              ctx.timeout(), cancellation);
           Watchdog.Timer limit = watchdog.start(left(ctx, start), response::close)) {
        byte[] body;
        try {
          body = response.readBody(MAX_BODY);
        } catch (IOException e) {
          if (limit.fired()) {
            return AttemptResult.failed(Failure.of(FailureKind.TIMEOUT, 0, "timeout",
                "no complete answer within " + ctx.timeout().toMillis() + " ms"), null);
          }
          throw e;
        }
        Reply reply = Reply.whole(response.status(), response.headers(), body);
        return response.status() >= 200 && response.status() < 300
            ? AttemptResult.success(reply)
            : AttemptResult.failed(classifier.classifyResponse(response.status(), response::header, body,
                endpoint.apiKey().isEmpty()), reply);
      } catch (CancellationException e) {
        return cancelled();
      } catch (IOException e) {
        return cancellation.isCancelled() ? cancelled() : AttemptResult.failed(classifier.classifyException(e), null);
      }
    };
  }

  private Duration left(AttemptContext ctx, long startNanos) {
    Duration left = ctx.timeout().minus(Duration.ofNanos(ticker.nanos() - startNanos));
    return left.isPositive() ? left : Duration.ofMillis(1);
  }

  private static AttemptResult<Reply> cancelled() {
    return AttemptResult.failed(Failure.of(FailureKind.CANCELLED, 0, "cancelled", "the client went away"), null);
  }
}
