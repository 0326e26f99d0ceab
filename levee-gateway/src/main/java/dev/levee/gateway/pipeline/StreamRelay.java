package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseWriter;
import dev.levee.anthropic.stream.EventType;
import dev.levee.anthropic.stream.StreamFailureException;
import dev.levee.anthropic.stream.UpstreamStream;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Headers;
import dev.levee.anthropic.Json;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.Completion;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Relays a stream past its commit point: the held events first, then every upstream event as it
 * arrives, until {@code message_stop}.
 *
 * <p>A stream that fails after the commit point is never passed off as complete (DESIGN.md
 * promise 3): it ends with an {@code event: error} — the upstream's own error event when that is
 * what ended it, else an {@code api_error} saying the upstream stream broke — which every SDK
 * raises. A client that goes away mid-stream closes the upstream at once and counts as no
 * failure of the target.
 */
final class StreamRelay {

  /** How the relayed stream ended. */
  enum Outcome { COMPLETE, FAILED, CLIENT_GONE }

  private StreamRelay() {}

  static Outcome relay(ChainResult.Answered<UpstreamReply> answered, ClientResponse client, Cancellation cancellation) {
    UpstreamReply reply = answered.response();
    Completion completion = answered.completion();
    client.headers(Headers.toClient(reply.headers()));
    try (UpstreamStream upstream = reply.stream()) {
      OutputStream body = client.startStream();
      SseWriter out = new SseWriter(body);
      try {
        for (SseEvent event : reply.held()) {
          out.write(event);
        }
        if (!upstream.finished()) {
          pump(upstream, out);
        }
        completion.success();
        body.close();
        client.complete();
        return Outcome.COMPLETE;
      } catch (StreamFailureException e) {
        if (cancellation.isCancelled()) {
          return clientGone(completion, client, e);
        }
        completion.failure(e.failure());
        out.write(e.errorEvent() != null ? e.errorEvent() : errorEvent(e.failure()));
        body.close();
        client.complete();
        return Outcome.FAILED;
      }
    } catch (IOException e) { // writing to the client failed: it went away
      return clientGone(completion, client, e);
    }
  }

  private static void pump(UpstreamStream upstream, SseWriter out) throws IOException {
    SseEvent event;
    while ((event = upstream.next()) != null) {
      out.write(event);
      if (EventType.of(event.event()) == EventType.MESSAGE_STOP) {
        return;
      }
    }
  }

  private static Outcome clientGone(Completion completion, ClientResponse client, Exception cause) {
    completion.cancelled();
    client.abort(cause);
    return Outcome.CLIENT_GONE;
  }

  /** Levee's event that ends a stream broken by a cut or a stall. */
  static SseEvent errorEvent(Failure failure) {
    ApiError error = new ApiError(500, failure.kind() == FailureKind.TIMEOUT ? "timeout_error" : "api_error",
        "The upstream stream broke after it had started (" + failure.errorType() + ": " + failure.message()
            + "); the answer is incomplete.");
    return new SseEvent("error", Json.string(error.toJson(null)));
  }
}
