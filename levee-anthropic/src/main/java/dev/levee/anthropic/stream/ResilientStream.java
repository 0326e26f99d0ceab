package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.Completion;
import dev.levee.core.chain.Target;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A stream of Messages API events with recovery hidden: iterate {@link #next()} until it returns
 * null, and the events read as one uninterrupted answer — or {@link #next()} throws, and the
 * answer is incomplete and must be ended with {@link StreamFailureException#errorEvent()}.
 *
 * <p>A break after the commit point (cut, stall, retryable in-band error, malformed event) is
 * recovered by asking for a continuation — the same target first, then the rest of the chain,
 * each in the form it accepts ({@link ContinuationRequest}) — within a fresh recovery window, the
 * retry budget and the breakers; the continuation is spliced in ({@link StreamSplicer}). It is
 * never passed off as complete when it is not (DESIGN.md promise 3).
 *
 * <p>Usable without the gateway: {@link StreamEngine#open} then {@link StreamEngine#resilient}.
 * Not thread-safe, except that the {@link Cancellation} given at creation may fire from any
 * thread. Close it on every exit path.
 */
public final class ResilientStream implements AutoCloseable {

  /** How a stream ended. */
  public enum Outcome { COMPLETE, FAILED, CLIENT_GONE }

  private final StreamEngine engine;
  private final OriginalRequest request;
  private final List<Target> chain;
  private final boolean resume;
  private final Cancellation cancellation;
  private final StreamSplicer splicer;
  private final Deque<SseEvent> fromUpstream = new ArrayDeque<>();
  private final Deque<SseEvent> toClient = new ArrayDeque<>();

  private Target target;
  private Completion completion;
  private UpstreamStream upstream;
  private int resumes;
  private long deltas;
  private boolean ended;

  ResilientStream(StreamEngine engine, ChainResult.Answered<Reply> first, OriginalRequest request, List<Target> chain,
      boolean resume, Cancellation cancellation) {
    this.engine = engine;
    this.request = request;
    this.chain = List.copyOf(chain);
    this.resume = resume;
    this.cancellation = cancellation;
    this.splicer = new StreamSplicer(engine.settings().dropDuplicates());
    adopt(first);
    engine.stats().started(first.steps().get(first.steps().size() - 1).took());
  }

  /**
   * The next event to send the client, or null once {@code message_stop} has been returned.
   *
   * @throws StreamFailureException when the answer cannot be completed (send its {@link
   *     StreamFailureException#errorEvent()}), or of kind CANCELLED when the client went away
   */
  public SseEvent next() throws StreamFailureException {
    while (toClient.isEmpty()) {
      if (splicer.finished()) {
        end(Outcome.COMPLETE);
        return null;
      }
      try {
        SseEvent event = fromUpstream.isEmpty() ? upstream.next() : fromUpstream.poll();
        if (event == null) {
          throw new StreamFailureException(Failure.of(FailureKind.CONNECTION, 0, "stream_cut", "stream ended"));
        }
        List<SseEvent> out = splicer.accept(event);
        for (SseEvent e : out) {
          if (EventType.of(e.event()) == EventType.CONTENT_BLOCK_DELTA) {
            deltas++;
          }
        }
        toClient.addAll(out);
        if (splicer.finished()) {
          completion.success();
        }
      } catch (StreamFailureException broken) {
        recover(broken);
      }
    }
    return toClient.poll();
  }

  /**
   * Whether {@link #next()} has an event at hand without waiting on the upstream (the caller may
   * hold its flush until it has written them).
   */
  public boolean ready() {
    return !toClient.isEmpty() || !fromUpstream.isEmpty() || (upstream != null && upstream.ready());
  }

  /** The target now answering. */
  public Target target() {
    return target;
  }

  /** Continuations spliced in so far. */
  public int resumes() {
    return resumes;
  }

  private void recover(StreamFailureException broken) throws StreamFailureException {
    Failure failure = broken.failure();
    upstream.close();
    if (cancellation.isCancelled()) {
      completion.cancelled();
      end(Outcome.CLIENT_GONE);
      throw new StreamFailureException(Failure.of(FailureKind.CANCELLED, 0, "cancelled", "the client went away"));
    }
    completion.failure(failure);
    if (splicer.messageDeltaSent()) {
      toClient.addAll(splicer.finishWithoutStop()); // only message_stop was missing: the answer is whole
      return;
    }
    if (failure.kind().isFinal() || !failure.mayRetrySameTarget() && !failure.kind().tryNextTarget()) {
      fail(broken.errorEvent() != null ? broken.errorEvent() : errorEvent(failure, "the upstream ended it"), failure);
    }
    if (!resume) {
      fail(errorEvent(failure, "resuming is off for this route"), failure);
    }
    if (!splicer.resumable()) {
      fail(errorEvent(failure, "it broke inside a thinking block, which cannot be resumed"), failure);
    }
    if (resumes >= engine.settings().maxResumes()) {
      fail(errorEvent(failure, "it broke " + (resumes + 1) + " times"), failure);
    }
    List<ObjectNode> partial = splicer.partialContent();
    Deadline window = Deadline.after(engine.settings().recoveryWindow(), engine.ticker());
    ChainResult<Reply> result = engine.chain().execute(continuationOrder(), window, true, engine.attempt(
        t -> engine.upstreams().request(request, t,
            ContinuationRequest.build(request.bodyFor(t.model()), t.model(), partial, engine.prefill(t))),
        cancellation));
    switch (result) {
      case ChainResult.Answered<Reply> answered -> {
        resumes++;
        splicer.beginContinuation(engine.prefill(answered.target()));
        adopt(answered);
      }
      case ChainResult.Cancelled<Reply> cancelled -> {
        end(Outcome.CLIENT_GONE);
        throw new StreamFailureException(Failure.of(FailureKind.CANCELLED, 0, "cancelled", "the client went away"));
      }
      case ChainResult.Rejected<Reply> rejected ->
          fail(errorEvent(rejected.failure(), "the continuation was refused"), rejected.failure());
      case ChainResult.Exhausted<Reply> exhausted ->
          fail(errorEvent(exhausted.lastFailure() != null ? exhausted.lastFailure() : failure,
              "no target could continue it (" + exhausted.targets().stream()
                  .map(t -> t.target().id() + ": " + t.outcome()).reduce((a, b) -> a + "; " + b).orElse("") + ")"),
              failure);
    }
  }

  private void adopt(ChainResult.Answered<Reply> answered) {
    target = answered.target();
    completion = answered.completion();
    upstream = answered.response().stream();
    fromUpstream.clear();
    fromUpstream.addAll(answered.response().held());
  }

  /** The answering target first, then the rest of the chain in order. */
  private List<Target> continuationOrder() {
    List<Target> order = new ArrayList<>();
    order.add(target);
    for (Target t : chain) {
      if (!t.equals(target)) {
        order.add(t);
      }
    }
    return order;
  }

  private void fail(SseEvent errorEvent, Failure failure) throws StreamFailureException {
    end(Outcome.FAILED);
    throw new StreamFailureException(failure, errorEvent);
  }

  private static SseEvent errorEvent(Failure failure, String why) {
    ApiError error = ApiError.of(failure, "The answer is incomplete: the upstream stream broke ("
        + failure.errorType() + ": " + failure.message() + ") and Levee could not resume it because " + why + ".");
    return new SseEvent("error", Json.string(error.toJson(null)));
  }

  private void end(Outcome outcome) {
    if (!ended) {
      ended = true;
      engine.stats().ended(outcome, resumes, deltas, splicer.duplicates());
    }
  }

  /** Closes the upstream; a stream abandoned before its end counts as the client going away. */
  @Override
  public void close() {
    if (upstream != null) {
      upstream.close();
    }
    if (!ended) {
      completion.cancelled();
      end(Outcome.CLIENT_GONE);
    }
  }
}
