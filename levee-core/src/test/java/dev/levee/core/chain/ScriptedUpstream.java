package dev.levee.core.chain;

import dev.levee.core.retry.Failure;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A fake upstream for {@link FallbackChain} tests: each target answers from its own queue of
 * scripted replies, in order, and every {@link AttemptContext} it is called with is recorded.
 * Calling a target with no reply left fails the test. A reply may take time on the shared
 * {@link ManualClock}.
 */
final class ScriptedUpstream implements Attempt<String> {

  /** One scripted reply. */
  @FunctionalInterface
  interface Reply {
    AttemptResult<String> answer(AttemptContext context) throws InterruptedException;
  }

  private final ManualClock clock;
  private final Map<Target, Deque<Reply>> replies = new HashMap<>();
  private final List<AttemptContext> calls = java.util.Collections.synchronizedList(new ArrayList<>());

  ScriptedUpstream(ManualClock clock) {
    this.clock = clock;
  }

  /** Appends replies to {@code target}'s script. */
  ScriptedUpstream on(Target target, Reply... script) {
    Deque<Reply> queue = replies.computeIfAbsent(target, t -> new ArrayDeque<>());
    queue.addAll(List.of(script));
    return this;
  }

  /** Every call made, in order. */
  List<AttemptContext> calls() {
    return calls;
  }

  /** The calls made to {@code target}. */
  List<AttemptContext> callsTo(Target target) {
    return calls.stream().filter(c -> c.target().equals(target)).toList();
  }

  @Override
  public AttemptResult<String> call(AttemptContext context) throws InterruptedException {
    calls.add(context);
    Deque<Reply> queue = replies.get(context.target());
    if (queue == null || queue.isEmpty()) {
      throw new AssertionError("unexpected call #" + context.call() + " to " + context.target());
    }
    return queue.removeFirst().answer(context);
  }

  // --- replies ---

  /** Answers at once with {@code body}. */
  static Reply ok(String body) {
    return context -> AttemptResult.success(body);
  }

  /** Fails at once with {@code failure} and an error body naming it. */
  static Reply fail(Failure failure) {
    return context -> AttemptResult.failed(failure, context.target().model() + ": " + failure.status() + " body");
  }

  /** Fails with no response at all (a timeout, a reset). */
  static Reply failWithoutResponse(Failure failure) {
    return context -> AttemptResult.failed(failure, null);
  }

  /** Takes {@code took} on the clock, then gives {@code reply}. */
  Reply after(Duration took, Reply reply) {
    return context -> {
      clock.advance(took);
      return reply.answer(context);
    };
  }

  /** The client goes away while the call is in flight. */
  static Reply interrupted() {
    return context -> {
      throw new InterruptedException("client went away");
    };
  }
}
