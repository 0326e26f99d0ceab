package dev.levee.anthropic.stream;

import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseReader;
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

  /**
   * The most event data held back before the commit point, in bytes: 32 MiB, one event's bound
   * ({@link SseReader#MAX_EVENT_BYTES}). The hold limit counts events; each may be that large, so
   * without this a stream could hold {@code hold-limit} times 32 MiB before its first delta.
   */
  static final long MAX_HELD_BYTES = SseReader.MAX_EVENT_BYTES;

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
    long heldBytes = 0;
    try {
      while (true) {
        SseEvent event = stream.next();
        if (event == null) {
          stream.holdBack(held);
          return AttemptResult.streaming(Reply.open(response.headers(), stream));
        }
        held.add(event);
        heldBytes += event.dataBytes().length;
        if (EventType.of(event.event()) == EventType.CONTENT_BLOCK_DELTA || stream.finished()) {
          ctx.control().firstByte(); // the first content delta: a hedge is no longer due
          stream.holdBack(held);
          return AttemptResult.streaming(Reply.open(response.headers(), stream));
        }
        if (held.size() > settings.holdLimit() || heldBytes > MAX_HELD_BYTES) {
          stream.close();
          return AttemptResult.failed(Failure.of(FailureKind.SERVER_ERROR, 200, "api_error",
              held.size() > settings.holdLimit() ? "more than " + settings.holdLimit() + " events before the first content delta"
                  : "more than " + (MAX_HELD_BYTES >> 20) + " MiB of events before the first content delta"), null);
        }
      }
    } catch (StreamFailureException e) {
      stream.close();
      return cancellation.isCancelled() ? cancelled() : AttemptResult.failed(e.failure(), null);
    }
  }
}
