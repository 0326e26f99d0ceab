package dev.levee.anthropic.stream;

import dev.levee.anthropic.error.ErrorClassifier;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Reply;
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
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.Function;

/**
 * One streaming call, as a {@link dev.levee.core.chain.FallbackChain} attempt: it succeeds once
 * the first content delta arrives (the commit point) within the time-to-first-token limit, with
 * every event read so far held back. An HTTP error, a cut, a stall, an in-band error or a slow
 * start before that point is a failed attempt the client never sees.
 */
final class StreamAttempt implements Attempt<Reply> {

  private static final int MAX_ERROR_BODY = 1 << 20;

  private final Function<Target, UpstreamRequest> requests;
  private final java.util.function.Predicate<Target> clientCredentials;
  private final UpstreamClient client;
  private final ErrorClassifier classifier;
  private final Watchdog watchdog;
  private final Ticker ticker;
  private final StreamSettings settings;
  private final Cancellation cancellation;

  StreamAttempt(Function<Target, UpstreamRequest> requests, java.util.function.Predicate<Target> clientCredentials,
      UpstreamClient client, ErrorClassifier classifier, Watchdog watchdog, Ticker ticker, StreamSettings settings,
      Cancellation cancellation) {
    this.requests = requests;
    this.clientCredentials = clientCredentials;
    this.client = client;
    this.classifier = classifier;
    this.watchdog = watchdog;
    this.ticker = ticker;
    this.settings = settings;
    this.cancellation = cancellation;
  }

  @Override
  public AttemptResult<Reply> call(AttemptContext ctx) {
    long start = ticker.nanos();
    UpstreamResponse response;
    try {
      response = client.send(requests.apply(ctx.target()), ctx.timeout(), cancellation);
    } catch (CancellationException e) {
      return cancelled();
    } catch (IOException e) {
      return cancellation.isCancelled() ? cancelled() : AttemptResult.failed(classifier.classifyException(e), null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return cancelled();
    }
    if (response.status() < 200 || response.status() >= 300) {
      try (response) {
        byte[] body = response.readBody(MAX_ERROR_BODY);
        Reply reply = Reply.whole(response.status(), response.headers(), body);
        return AttemptResult.failed(classifier.classifyResponse(response.status(), response::header, body,
            clientCredentials.test(ctx.target())), reply);
      } catch (IOException e) {
        return cancellation.isCancelled() ? cancelled() : AttemptResult.failed(classifier.classifyException(e), null);
      }
    }
    Duration left = min(settings.ttftTimeout(), ctx.timeout()).minus(Duration.ofNanos(ticker.nanos() - start));
    UpstreamStream stream = new UpstreamStream(response, classifier, watchdog,
        left.isPositive() ? left : Duration.ofMillis(1), settings.idleTimeout());
    List<SseEvent> held = new ArrayList<>();
    try {
      while (true) {
        SseEvent event = stream.next();
        if (event == null) {
          return AttemptResult.success(Reply.open(response.headers(), stream, held));
        }
        held.add(event);
        if (EventType.of(event.event()) == EventType.CONTENT_BLOCK_DELTA || stream.finished()) {
          return AttemptResult.success(Reply.open(response.headers(), stream, held));
        }
        if (held.size() > settings.holdLimit()) {
          stream.close();
          return AttemptResult.failed(Failure.of(FailureKind.SERVER_ERROR, 200, "api_error",
              "more than " + settings.holdLimit() + " events before the first content delta"), null);
        }
      }
    } catch (StreamFailureException e) {
      stream.close();
      return cancellation.isCancelled() ? cancelled() : AttemptResult.failed(e.failure(), null);
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  static AttemptResult<Reply> cancelled() {
    return AttemptResult.failed(Failure.of(FailureKind.CANCELLED, 0, "cancelled", "the client went away"), null);
  }
}
