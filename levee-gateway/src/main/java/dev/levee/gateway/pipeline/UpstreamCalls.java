package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ErrorClassifier;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.stream.EventType;
import dev.levee.anthropic.stream.StreamFailureException;
import dev.levee.anthropic.stream.UpstreamStream;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Headers;
import dev.levee.anthropic.upstream.UpstreamClient;
import dev.levee.anthropic.upstream.UpstreamRequest;
import dev.levee.anthropic.upstream.UpstreamResponse;
import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.core.chain.Attempt;
import dev.levee.core.chain.AttemptContext;
import dev.levee.core.chain.AttemptResult;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.config.GatewayConfig;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;

/**
 * Makes one upstream call for a chain attempt and classifies what came back — the {@link
 * Attempt}s the {@link dev.levee.core.chain.FallbackChain} runs. Never retries on its own.
 *
 * <p>A JSON call succeeds with the whole body read within the attempt's time. A stream call
 * succeeds once the first content delta arrives (the commit point) within the time-to-first-token
 * limit; everything before it is held back, so a failure up to that point is invisible to the
 * client.
 */
final class UpstreamCalls {

  private static final int MAX_BODY = 64 << 20;

  private final Map<String, GatewayConfig.Upstream> upstreams;
  private final UpstreamClient client;
  private final ErrorClassifier classifier;
  private final Watchdog watchdog;
  private final Ticker ticker;
  private final GatewayConfig.Stream streamLimits;

  UpstreamCalls(Map<String, GatewayConfig.Upstream> upstreams, UpstreamClient client, ErrorClassifier classifier,
      Watchdog watchdog, Ticker ticker, GatewayConfig.Stream streamLimits) {
    this.upstreams = upstreams;
    this.client = client;
    this.classifier = classifier;
    this.watchdog = watchdog;
    this.ticker = ticker;
    this.streamLimits = streamLimits;
  }

  /** An attempt that sends {@code in} with each target's model and reads a whole body. */
  Attempt<UpstreamReply> json(InboundRequest in, Cancellation cancellation) {
    return ctx -> {
      long start = ticker.nanos();
      try (UpstreamResponse response = client.send(request(in, ctx.target()), ctx.timeout(), cancellation);
           Watchdog.Timer limit = watchdog.start(left(ctx, start), response::close)) {
        byte[] body;
        try {
          body = response.readBody(MAX_BODY);
        } catch (IOException e) {
          if (limit.fired()) {
            return timeout(ctx);
          }
          throw e;
        }
        UpstreamReply reply = UpstreamReply.whole(response.status(), response.headers(), body);
        return isSuccess(response.status())
            ? AttemptResult.success(reply)
            : AttemptResult.failed(classifier.classifyResponse(response.status(), response::header, body), reply);
      } catch (CancellationException e) {
        return cancelled();
      } catch (IOException e) {
        return cancellation.isCancelled() ? cancelled() : AttemptResult.failed(classifier.classifyException(e), null);
      }
    };
  }

  /** An attempt that opens a stream and reads it up to its commit point. */
  Attempt<UpstreamReply> stream(InboundRequest in, Cancellation cancellation) {
    return ctx -> {
      long start = ticker.nanos();
      UpstreamResponse response;
      try {
        response = client.send(request(in, ctx.target()), ctx.timeout(), cancellation);
      } catch (CancellationException e) {
        return cancelled();
      } catch (IOException e) {
        return cancellation.isCancelled() ? cancelled() : AttemptResult.failed(classifier.classifyException(e), null);
      }
      if (!isSuccess(response.status())) {
        try (response) {
          byte[] body = response.readBody(MAX_BODY);
          UpstreamReply reply = UpstreamReply.whole(response.status(), response.headers(), body);
          return AttemptResult.failed(classifier.classifyResponse(response.status(), response::header, body), reply);
        } catch (IOException e) {
          return cancellation.isCancelled() ? cancelled() : AttemptResult.failed(classifier.classifyException(e), null);
        }
      }
      Duration ttft = min(streamLimits.ttftTimeout(), ctx.timeout()).minus(Duration.ofNanos(ticker.nanos() - start));
      UpstreamStream stream = new UpstreamStream(response, classifier, watchdog,
          ttft.isPositive() ? ttft : Duration.ofMillis(1), streamLimits.idleTimeout());
      List<SseEvent> held = new ArrayList<>();
      try {
        while (true) {
          SseEvent event = stream.next();
          held.add(event);
          if (EventType.of(event.event()) == EventType.CONTENT_BLOCK_DELTA) {
            return AttemptResult.success(UpstreamReply.open(response.headers(), stream, held));
          }
          if (held.size() > streamLimits.holdLimit()) {
            stream.close();
            return AttemptResult.failed(Failure.of(FailureKind.SERVER_ERROR, 200, "api_error",
                "more than " + streamLimits.holdLimit() + " events before the first content delta"), null);
          }
          if (stream.finished()) {
            return AttemptResult.success(UpstreamReply.open(response.headers(), stream, held));
          }
        }
      } catch (StreamFailureException e) {
        stream.close();
        return cancellation.isCancelled() ? cancelled() : AttemptResult.failed(e.failure(), null);
      }
    };
  }

  private UpstreamRequest request(InboundRequest in, Target target) {
    GatewayConfig.Upstream upstream = upstreams.get(target.upstream());
    String uri = upstream.url() + in.path() + (in.query() == null ? "" : "?" + in.query());
    return new UpstreamRequest(URI.create(uri), "POST", Headers.toUpstream(in.headers(), upstream.apiKey()),
        in.body().withModel(target.model()));
  }

  private Duration left(AttemptContext ctx, long startNanos) {
    Duration left = ctx.timeout().minus(Duration.ofNanos(ticker.nanos() - startNanos));
    return left.isPositive() ? left : Duration.ofMillis(1);
  }

  private static boolean isSuccess(int status) {
    return status >= 200 && status < 300;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static AttemptResult<UpstreamReply> timeout(AttemptContext ctx) {
    return AttemptResult.failed(Failure.of(FailureKind.TIMEOUT, 0, "timeout",
        "no complete answer within " + ctx.timeout().toMillis() + " ms"), null);
  }

  private static AttemptResult<UpstreamReply> cancelled() {
    return AttemptResult.failed(Failure.of(FailureKind.CANCELLED, 0, "cancelled", "the client went away"), null);
  }
}
