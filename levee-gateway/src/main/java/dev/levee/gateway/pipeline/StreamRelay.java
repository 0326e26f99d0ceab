package dev.levee.gateway.pipeline;

import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseWriter;
import dev.levee.anthropic.stream.ResilientStream;
import dev.levee.anthropic.stream.StreamFailureException;
import dev.levee.anthropic.upstream.Headers;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.retry.FailureKind;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Relays a stream past its commit point: every event the {@link ResilientStream} yields, as it
 * yields it, until {@code message_stop}. Breaks are recovered inside the resilient stream; when
 * one cannot be, the stream ends with an {@code event: error} that every SDK raises — never with
 * a {@code message_stop} over a partial answer. A client that goes away closes the upstream at
 * once and counts as no failure of the target.
 */
final class StreamRelay {

  private StreamRelay() {}

  /**
   * @param tap sees every event the client is sent (e.g. to assemble the answer for the cache)
   */
  static ResilientStream.Outcome relay(Reply first, ResilientStream stream, ClientResponse client,
      java.util.function.Consumer<SseEvent> tap) {
    client.headers(Headers.toClient(first.headers()));
    try (stream) {
      OutputStream body = client.startStream();
      SseWriter out = new SseWriter(body);
      try {
        SseEvent event;
        while ((event = stream.next()) != null) {
          out.write(event, !stream.ready()); // flush whenever the next event would have to be waited for
          tap.accept(event);
        }
        client.endStream(body);
        return ResilientStream.Outcome.COMPLETE;
      } catch (StreamFailureException e) {
        if (e.failure().kind() == FailureKind.CANCELLED) {
          client.abort(e);
          return ResilientStream.Outcome.CLIENT_GONE;
        }
        out.write(e.errorEvent());
        client.endStream(body);
        return ResilientStream.Outcome.FAILED;
      }
    } catch (IOException e) { // writing to the client failed: it went away
      client.abort(e);
      return ResilientStream.Outcome.CLIENT_GONE;
    }
  }
}
