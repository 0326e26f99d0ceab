package dev.levee.gateway.pipeline;

import dev.levee.anthropic.sse.SseWriter;
import dev.levee.anthropic.stream.ResilientStream;
import dev.levee.anthropic.stream.StreamEngine;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.ChainResult;
import java.util.function.Supplier;

/**
 * Stage 5, relay: turns the chain's result into an {@link Outcome}. A JSON answer is handed on
 * whole. A stream past its commit point is relayed event by event as the {@link ResilientStream}
 * yields it, until {@code message_stop}: breaks are recovered inside the resilient stream; when
 * one cannot be, the stream gets an {@code event: error} that every SDK raises — never a {@code
 * message_stop} over a partial answer (DESIGN.md promise 3): the upstream's own as it came when it
 * ended the stream, else Levee's, whose {@code request_id} is the request's Levee id. A client
 * that goes away closes the upstream at once and counts as no failure of the target. Relayed by a
 * {@link StreamRelay}, which may wait for the upstream with no thread ({@link Waits}).
 *
 * <p>The relay settles nothing itself (the resilient stream settles its own calls): the recorder
 * does the bookkeeping, the responder sends the rest.
 */
final class Relay {

  /**
   * Commits the client's stream: the head for the answer that started it, sent with the first
   * events; returns the body's writer, whose gathered events the responder writes with the end.
   */
  @FunctionalInterface
  interface StreamStart {
    SseWriter start(ChainResult.Answered<Reply> first, int calls);
  }

  /**
   * Whether a stream waits for its upstream's next bytes with no thread: the relaying thread ends
   * and a fresh one goes on once they arrive (or the upstream breaks, or the client leaves). A
   * parked virtual thread keeps its frozen stack, the largest item of a slow stream waiting between
   * deltas (issue 11: 10,000 streams in {@code -Xmx256m}).
   */
  interface Waits {

    /** Never: the stream waits in its reads (a few streams in flight, queued work). */
    Waits NEVER = new Waits() {
      @Override
      public boolean letGo() {
        return false;
      }

      @Override
      public void resume(Supplier<Outcome> rest) {
        throw new IllegalStateException("this stream never lets its thread go");
      }
    };

    /** Whether the wait about to start lets the thread go. */
    boolean letGo();

    /**
     * Goes on after a wait without a thread, on a fresh one: {@code rest} relays on and returns the
     * stream's outcome, or null when it let that thread go too. Called on the thread that ended
     * the wait: must only hand off.
     */
    void resume(Supplier<Outcome> rest);
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
   * @param waits whether a stream may wait with no thread
   * @return the outcome; null when a stream went on to wait with no thread: {@code waits} then
   *     resumes it, and the outcome is what its last resumed relay returns
   */
  Outcome relay(ChainResult<Reply> result, String requestId, Plan plan, boolean assemble, Cancellation cancellation,
      StreamStart start, Waits waits) {
    int calls = result.calls();
    return switch (result) {
      case ChainResult.Answered<Reply> answered when streams(answered) ->
          stream(answered, requestId, plan, assemble, cancellation, start, waits);
      case ChainResult.Answered<Reply> answered -> new Outcome.Answered(answered, calls);
      case ChainResult.Rejected<Reply> rejected ->
          new Outcome.Rejected(rejected.target(), rejected.failure(), rejected.response(), calls);
      case ChainResult.Exhausted<Reply> exhausted ->
          new Outcome.Exhausted(FailureResponse.of(exhausted), calls, exhausted.steps());
      case ChainResult.Cancelled<Reply> cancelled -> new Outcome.Cancelled(calls);
    };
  }

  private Outcome stream(ChainResult.Answered<Reply> first, String requestId, Plan plan, boolean assemble,
      Cancellation cancellation, StreamStart start, Waits waits) {
    ResilientStream stream = streams.resilient(first, plan.request(), plan.targets(), plan.recover(), cancellation);
    StreamRelay relay;
    try {
      relay = new StreamRelay(first, stream, start.start(first, first.calls()), requestId, assemble, waits);
    } catch (RuntimeException | Error e) {
      stream.close();
      throw e;
    }
    return relay.run();
  }
}
