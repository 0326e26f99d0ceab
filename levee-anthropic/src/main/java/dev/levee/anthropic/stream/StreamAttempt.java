package dev.levee.anthropic.stream;

import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.anthropic.upstream.UpstreamAttempt;
import dev.levee.anthropic.upstream.UpstreamRequest;
import dev.levee.anthropic.upstream.UpstreamResponse;
import dev.levee.anthropic.upstream.Upstreams;
import dev.levee.core.chain.AttemptContext;
import dev.levee.core.chain.AttemptResult;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One streaming call, as a {@link dev.levee.core.chain.FallbackChain} attempt: it succeeds once
 * the first content delta arrives (the commit point) within the time-to-first-token limit, with
 * every event read so far held back (by the stream, which returns them first). An HTTP error, a cut, a stall, an in-band error or a slow
 * start before that point is a failed attempt the client never sees.
 */
final class StreamAttempt extends UpstreamAttempt {

  private final StreamSettings settings;

  StreamAttempt(Upstreams upstreams, Function<Target, UpstreamRequest> requests, StreamSettings settings,
      Cancellation cancellation) {
    super(upstreams, requests, cancellation);
    this.settings = settings;
  }

  @Override
  protected AttemptResult<Reply> answered(AttemptContext ctx, UpstreamResponse response, long startNanos) {
    Duration ttft = settings.ttftTimeout().compareTo(ctx.timeout()) <= 0 ? settings.ttftTimeout() : ctx.timeout();
    UpstreamStream stream = new UpstreamStream(response, upstreams.classifier(), upstreams.watchdog(),
        left(ttft, startNanos), settings.idleTimeout());
    List<SseEvent> held = new ArrayList<>();
    try {
      while (true) {
        SseEvent event = stream.next();
        if (event == null) {
          stream.holdBack(held);
          return AttemptResult.streaming(Reply.open(response.headers(), stream));
        }
        held.add(event);
        if (EventType.of(event.event()) == EventType.CONTENT_BLOCK_DELTA || stream.finished()) {
          ctx.control().firstByte(); // the first content delta: a hedge is no longer due
          stream.holdBack(held);
          return AttemptResult.streaming(Reply.open(response.headers(), stream));
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
}
