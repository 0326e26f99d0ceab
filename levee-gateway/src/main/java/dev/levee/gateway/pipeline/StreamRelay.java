package dev.levee.gateway.pipeline;

import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseWriter;
import dev.levee.anthropic.stream.MessageAssembler;
import dev.levee.anthropic.stream.ResilientStream;
import dev.levee.anthropic.stream.StreamFailureException;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * One stream past its commit point, relayed to its client event by event ({@link Relay}): until
 * {@code message_stop}, an unrecoverable break (its {@code event: error}), or the client going
 * away. Where {@link Relay.Waits} lets it, it waits for the upstream's next bytes with no thread
 * (issue 11): the thread relaying ends, and a fresh one {@link #run() runs} on once they arrive.
 * One thread at a time; every field is handed from one to the next through the wait's hand-off.
 */
final class StreamRelay {

  private final ChainResult.Answered<Reply> first;
  private final ResilientStream stream;
  private final SseWriter out;
  private final String requestId;
  private final MessageAssembler assembled;
  private final Relay.Waits waits;
  private Failure failure; // why it failed, once it has
  private boolean atHand = true; // whether the next event is at hand without a wait (first: the held-back ones)

  /**
   * @param out the writer of the client's stream, committed; the relay leaves its last event
   *     ({@code message_stop}, or Levee's {@code event: error}) gathered in it, for the handler to
   *     write with the stream's end as soon as the relay has ended, before stage 6
   * @param requestId Levee's id of the request, for the {@code request_id} of an {@code event: error} Levee writes
   * @param assemble whether to assemble a completed stream's message (for the cache)
   */
  StreamRelay(ChainResult.Answered<Reply> first, ResilientStream stream, SseWriter out, String requestId,
      boolean assemble, Relay.Waits waits) {
    this.first = first;
    this.stream = stream;
    this.out = out;
    this.requestId = requestId;
    this.assembled = assemble ? new MessageAssembler() : null;
    this.waits = waits;
  }

  /**
   * Relays on, closing the stream once it has ended.
   *
   * @return how it ended; null when it went on to wait with no thread ({@link Relay.Waits#resume}
   *     then runs this again on a fresh one)
   */
  Outcome run() {
    ResilientStream.Outcome ended;
    try {
      ended = pump();
    } catch (RuntimeException | Error e) {
      out.discard(); // what was gathered (maybe part of an event) must not follow the failure
      stream.close();
      throw e;
    }
    if (ended == null) {
      return null;
    }
    try (stream) {
      int calls = first.calls() + stream.recoveryCalls(); // every upstream call, failed recovery calls included
      Supplier<byte[]> message = assembled != null && ended == ResilientStream.Outcome.COMPLETE ? assembled::message : null;
      return new Outcome.Streamed(first, ended, stream.target(), stream.recoveries(), calls, message, stream.usage(),
          failure);
    }
  }

  /**
   * Null when the stream now waits with no thread; the writes before the wait were flushed. On
   * any other return the last events ({@code message_stop}, or an {@code event: error}) are still
   * gathered in {@link #out}: they leave with the stream's end, in one write.
   */
  private ResilientStream.Outcome pump() {
    try {
      try {
        while (true) {
          if (!atHand && waits.letGo() && stream.whenReady(this::resume)) {
            return null; // this thread ends; nothing here may touch the stream from now on
          }
          SseEvent event = stream.next();
          if (event == null) {
            return ResilientStream.Outcome.COMPLETE;
          }
          atHand = stream.ready();
          out.write(event, RelayFlushes.after(event, atHand)); // before a wait; not message_stop
          if (assembled != null) {
            assembled.accept(event);
          }
        }
      } catch (StreamFailureException e) {
        if (e.failure().kind() == FailureKind.CANCELLED) {
          return ResilientStream.Outcome.CLIENT_GONE;
        }
        failure = e.failure();
        out.write(e.errorEvent(requestId), false); // leaves with the stream's end, written before stage 6
        return ResilientStream.Outcome.FAILED;
      }
    } catch (IOException e) { // writing to the client failed: it went away
      return ResilientStream.Outcome.CLIENT_GONE;
    }
  }

  private void resume() {
    atHand = true; // bytes arrived (or the upstream broke): read them at once; a partial event's rest may block briefly
    waits.resume(this::run);
  }
}
