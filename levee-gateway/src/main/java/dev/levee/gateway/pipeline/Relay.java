package dev.levee.gateway.pipeline;

import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseWriter;
import dev.levee.anthropic.stream.MessageAssembler;
import dev.levee.anthropic.stream.ResilientStream;
import dev.levee.anthropic.stream.StreamEngine;
import dev.levee.anthropic.stream.StreamFailureException;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.retry.FailureKind;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Stage 5, relay: turns the chain's result into an {@link Outcome}. A JSON answer is handed on
 * whole. A stream past its commit point is relayed event by event as the {@link ResilientStream}
 * yields it, until {@code message_stop}: breaks are recovered inside the resilient stream; when
 * one cannot be, the stream gets an {@code event: error} that every SDK raises — never a {@code
 * message_stop} over a partial answer (DESIGN.md promise 3): the upstream's own as it came when it
 * ended the stream, else Levee's, whose {@code request_id} is the request's Levee id. A client that goes away closes the
 * upstream at once and counts as no failure of the target.
 *
 * <p>The relay settles nothing itself (the resilient stream settles its own calls): the recorder
 * does the bookkeeping, the responder sends the rest.
 */
final class Relay {

  /** Commits the client's stream: sends the head for the answer that started it, returns the body. */
  @FunctionalInterface
  interface StreamStart {
    OutputStream start(ChainResult.Answered<Reply> first, int calls);
  }

  private final StreamEngine streams;

  Relay(StreamEngine streams) {
    this.streams = streams;
  }

  /** Whether {@code result} is a stream past its commit point (relayed event by event). */
  static boolean streams(ChainResult<Reply> result) {
    return result instanceof ChainResult.Answered<Reply> answered && answered.response().stream() != null;
  }

  /**
   * @param requestId Levee's id of the request ({@code x-levee-request-id}), for the {@code
   *     request_id} of an {@code event: error} Levee writes
   * @param assemble whether to assemble a completed stream's message (for the cache)
   */
  Outcome relay(ChainResult<Reply> result, String requestId, Plan plan, boolean assemble, Cancellation cancellation,
      StreamStart start) {
    int calls = result.calls();
    return switch (result) {
      case ChainResult.Answered<Reply> answered when streams(answered) ->
          stream(answered, requestId, plan, assemble, cancellation, start);
      case ChainResult.Answered<Reply> answered -> new Outcome.Answered(answered, calls);
      case ChainResult.Rejected<Reply> rejected ->
          new Outcome.Rejected(rejected.target(), rejected.failure(), rejected.response(), calls);
      case ChainResult.Exhausted<Reply> exhausted ->
          new Outcome.Exhausted(FailureResponse.of(exhausted), calls, exhausted.steps());
      case ChainResult.Cancelled<Reply> cancelled -> new Outcome.Cancelled(calls);
    };
  }

  private Outcome stream(ChainResult.Answered<Reply> first, String requestId, Plan plan, boolean assemble,
      Cancellation cancellation, StreamStart start) {
    MessageAssembler assembled = assemble ? new MessageAssembler() : null;
    UsageTap usage = new UsageTap();
    ResilientStream.Outcome ended;
    try (ResilientStream stream = streams.resilient(first, plan.request(), plan.targets(), plan.recover(), cancellation)) {
      ended = pump(stream, start.start(first, first.calls()), requestId, assembled, usage);
      // every upstream call the stream made, failed recovery calls included
      int calls = first.calls() + stream.recoveryCalls();
      byte[] message = assembled != null && ended == ResilientStream.Outcome.COMPLETE ? assembled.message() : null;
      return new Outcome.Streamed(first, ended, stream.target(), stream.recoveries(), calls, message, usage.usage());
    }
  }

  private static ResilientStream.Outcome pump(ResilientStream stream, OutputStream body, String requestId,
      MessageAssembler assembled, UsageTap usage) {
    SseWriter out = new SseWriter(body);
    RelayFlushes flushes = new RelayFlushes();
    try {
      try {
        SseEvent event;
        while ((event = stream.next()) != null) {
          out.write(event, flushes.after(event, stream.ready())); // before a wait, and at the first delta
          if (assembled != null) {
            assembled.accept(event);
          }
          usage.accept(event);
        }
        return ResilientStream.Outcome.COMPLETE;
      } catch (StreamFailureException e) {
        if (e.failure().kind() == FailureKind.CANCELLED) {
          return ResilientStream.Outcome.CLIENT_GONE;
        }
        out.write(e.errorEvent(requestId));
        return ResilientStream.Outcome.FAILED;
      }
    } catch (IOException e) { // writing to the client failed: it went away
      return ResilientStream.Outcome.CLIENT_GONE;
    }
  }
}
