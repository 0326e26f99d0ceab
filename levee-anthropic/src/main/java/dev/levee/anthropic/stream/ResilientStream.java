package dev.levee.anthropic.stream;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.TargetReports;
import dev.levee.anthropic.message.TokenUsage;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.Completion;
import dev.levee.core.chain.Target;
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
 * answer is incomplete and must be ended with {@link StreamFailureException#errorEvent(String)}.
 *
 * <p>A break after the commit point (cut, stall, retryable in-band error, malformed event) is
 * recovered: the targets of its {@link Recovery} are asked, in {@link Recovery#order} order and
 * each in the form it accepts ({@link RecoveryRequest}), to continue the client's {@link
 * Transcript}, within a fresh recovery window, the retry budget and the breakers; the recovery is
 * spliced in ({@link StreamSplicer}). It is never passed off as complete when it is not (DESIGN.md
 * promise 3).
 *
 * <p>Usable without the gateway: {@link StreamEngine#open} then {@link StreamEngine#resilient}.
 * Not thread-safe, except that the {@link Cancellation} given at creation may fire from any
 * thread. Close it on every exit path.
 */
public final class ResilientStream implements AutoCloseable {

  /** How a stream ended. */
  public enum Outcome { COMPLETE, FAILED, CLIENT_GONE }

  private final Recovery recovery;
  private final StreamStats stats;
  private final StreamSplicer splicer;
  private final Deque<SseEvent> toClient = new ArrayDeque<>();

  private final Target opened; // the target of the first attempt, whose input a continuation's is compared with
  private Target target;
  private List<Target> continuedBy; // the target of each continuation spliced in, in order; null until one is
  private Completion completion;
  private UpstreamStream upstream;
  private int breaksRecovered; // bounded by StreamSettings#maxRecoveries
  private int recoveries; // continuations spliced in: one per break recovered, one per goOn
  private int recoveryCalls;
  private long deltas;
  private Duration silent = Duration.ZERO; // the stalls' silences so far, recovered ones
  private boolean ended;

  ResilientStream(ChainResult.Answered<Reply> first, Recovery recovery, StreamStats stats) {
    this.recovery = recovery;
    this.stats = stats;
    this.splicer = new StreamSplicer(recovery.settings().dropDuplicates(), recovery.request().maxTokens());
    adopt(first);
    opened = target;
    stats.started(first.steps().get(first.steps().size() - 1).took());
  }

  /**
   * The next event to send the client, or null once {@code message_stop} has been returned.
   *
   * @throws StreamFailureException when the answer cannot be completed (send its {@link
   *     StreamFailureException#errorEvent(String)}), or of kind CANCELLED when the client went away
   */
  public SseEvent next() throws StreamFailureException {
    while (toClient.isEmpty()) {
      if (splicer.finished()) {
        end(Outcome.COMPLETE);
        return null;
      }
      boolean stoppedShort = false;
      try {
        SseEvent event = upstream.next(); // the events held at the commit point first
        if (event == null) {
          throw new StreamFailureException(Failure.of(FailureKind.CONNECTION, 0, "stream_cut", "stream ended"));
        }
        List<SseEvent> out = splicer.accept(event);
        for (int i = 0; i < out.size(); i++) {
          SseEvent e = out.get(i);
          if (EventType.of(e.event()) == EventType.CONTENT_BLOCK_DELTA) {
            deltas++;
          }
          toClient.add(e);
        }
        if (splicer.finished()) {
          completion.success();
        } else if (splicer.stoppedShort()) {
          completion.success();
          stoppedShort = true;
        }
      } catch (StreamFailureException broken) {
        recover(broken);
      }
      if (stoppedShort) {
        goOn();
      }
    }
    return toClient.poll();
  }

  /**
   * Whether {@link #next()} has an event at hand without waiting on the upstream (the caller may
   * hold its flush until it has written them). False once the answer is finished, though its
   * upstream's unread rest (a continuation dropped at its {@code message_start}) be at hand: the
   * next {@link #next()} returns null, and a caller holding its flush for it would never flush
   * ({@code StreamEndFlushedRegressionTest}).
   */
  public boolean ready() {
    return !toClient.isEmpty() || (!splicer.finished() && upstream != null && upstream.ready());
  }

  /**
   * Runs {@code ready} once {@link #next()} may have an event without waiting for the upstream
   * (its bytes started to arrive, or the upstream broke: recovery then runs in {@link #next()}),
   * so that the caller's thread may end meanwhile rather than park in the read (issue 11). A
   * client going away, a stall or idle limit end the wait as they end a read.
   *
   * @param ready runs on another thread and must only hand off (start the thread that calls
   *     {@link #next()})
   * @return whether {@code ready} will run; false: call {@link #next()} now
   */
  public boolean whenReady(Runnable ready) {
    return toClient.isEmpty() && !splicer.finished() && upstream.whenReady(ready);
  }

  /** The target now answering. */
  public Target target() {
    return target;
  }

  /**
   * Continuations spliced in so far: one per break recovered, and one more for each recovered
   * answer that went on to the client's {@code max_tokens} after it stopped short ({@link
   * StreamSplicer#stoppedShort()}). What {@code levee_stream_resumes_total} and the access log's
   * {@code recoveries=} count; {@link StreamSettings#maxRecoveries()} bounds the breaks alone.
   */
  public int recoveries() {
    return recoveries;
  }

  /**
   * The tokens this stream has used so far, by the target that served them, in the order they first
   * served it (one entry per target: the one it opened on, then each other that continued it). Each
   * attempt's input and cache tokens count for its own target, as its {@code message_start} and
   * {@code message_delta} reported them (a continuation's whole input included, though the client
   * never sees its {@code message_start}); the output tokens of the client's answer are split by
   * the part each attempt produced (as {@link StreamSplicer} counts them: the upstream's own count
   * where a continuation's input gave it, else counted high). The entries add up to the usage of
   * the client's final {@code message_delta}; for a stream that did not finish they are what was
   * reported so far. All counts in tokens; no event is read again to tell them.
   */
  public List<TargetUsage> usage() {
    List<TokenUsage> attempts = splicer.usageByAttempt(); // the first attempt's, then each continuation's
    if (continuedBy == null) {
      return List.of(new TargetUsage(opened, attempts.getFirst()));
    }
    List<TargetUsage> byTarget = new ArrayList<>(2);
    int served = Math.min(attempts.size(), 1 + continuedBy.size()); // a last attempt ended with no successor has none
    for (int i = 0; i < served; i++) {
      add(byTarget, i == 0 ? opened : continuedBy.get(i - 1), attempts.get(i));
    }
    return byTarget;
  }

  private static void add(List<TargetUsage> byTarget, Target target, TokenUsage usage) {
    for (int i = 0; i < byTarget.size(); i++) {
      if (byTarget.get(i).target().equals(target)) {
        byTarget.set(i, new TargetUsage(target, byTarget.get(i).usage().plus(usage)));
        return;
      }
    }
    byTarget.add(new TargetUsage(target, usage));
  }

  /** Upstream calls made to recover this stream so far, failed ones included. */
  public int recoveryCalls() {
    return recoveryCalls;
  }

  private void recover(StreamFailureException broken) throws StreamFailureException {
    Failure failure = broken.failure();
    upstream.close();
    if (recovery.cancellation().isCancelled()) {
      completion.cancelled();
      throw clientGone();
    }
    if (splicer.messageDeltaSent()) {
      completion.failure(failure);
      toClient.addAll(splicer.finishWithoutStop()); // only message_stop was missing: the answer is whole
      return;
    }
    if (splicer.stoppedShort()) {
      completion.failure(failure);
      goOn(); // its message_delta came: the answer was whole up to where it stopped
      return;
    }
    String impossible = whyNotRecoverable(failure);
    if (impossible != null) {
      completion.failure(failure);
      fail(impossible.isEmpty() && broken.upstreamError() != null
          ? new StreamFailureException(failure, broken.upstreamError()) // relayed as it came
          : endedByLevee(failure, failure, impossible.isEmpty() ? "the upstream ended it" : impossible));
    }
    long spent = splicer.endAttempt();
    List<Target> order = recovery.order(target, failure.kind());
    boolean nothingLeft = recovery.outputTokensLeft(spent) <= 0;
    if (nothingLeft && !mayCountLower(order.get(0))) {
      completion.failure(failure);
      toClient.addAll(splicer.finishAtMaxTokens()); // as an unbroken answer that reached max_tokens ends
      return;
    }
    if (nothingLeft) { // asked only for the count: another model's would be dropped at its message_start, unused
      order = order.stream().filter(this::mayCountLower).toList();
    }
    silent = silent.plus(silenceOf(failure));
    if (order.get(0).equals(target)) {
      completion.failureRecoveredHere(failure); // a trial's verdict is left to its own recovery
    } else {
      completion.failure(failure);
    }
    ChainResult<Reply> asked = recovery.ask(order, splicer.transcript().content(), spent);
    recoveryCalls += asked.calls();
    switch (asked) {
      case ChainResult.Answered<Reply> answered -> {
        breaksRecovered++;
        recoveries++;
        splicer.beginRecovery(recovery.prefills(answered.target()));
        adopt(answered);
      }
      case ChainResult.Cancelled<Reply> cancelled -> throw clientGone();
      case ChainResult<Reply> unanswered when nothingLeft ->
          toClient.addAll(splicer.finishAtMaxTokens()); // as if it had not asked: the answer is at its limit as counted
      case ChainResult.Rejected<Reply> rejected ->
          fail(new StreamFailureException(rejected.failure(), incomplete(failure, rejected.failure(),
              "the recovery was refused")));
      case ChainResult.Exhausted<Reply> exhausted ->
          fail(endedByLevee(failure, exhausted.lastFailure() != null ? exhausted.lastFailure() : failure,
              "no target could continue it (" + TargetReports.describe(exhausted.targets()) + ")"));
    }
  }

  /**
   * Whether a continuation by {@code next} may find, by its input's count, that the answer cost
   * less than counted high ({@link OutputCount}): it is of the first attempt's model and the answer
   * holds no thinking. Then a break whose count leaves nothing still asks (for 1 token: {@link
   * RecoveryRequest} never asks for less), and the continuation is dropped at its {@code
   * message_start} when the count leaves nothing after all. Only such targets are asked then: a
   * continuation by another model is always dropped, its whole input billed for nothing (before
   * session 13 the chain went on to them when the first model's targets failed: {@code
   * NoWastedContinuationOnAnotherModelRegressionTest}); when none answers, the answer ends at its
   * limit as counted, as it would have without asking.
   */
  private boolean mayCountLower(Target next) {
    return next.model().equals(opened.model()) && !splicer.transcript().hasThinking();
  }

  /**
   * Asks for the rest of an answer whose continuation {@link StreamSplicer#stoppedShort() stopped
   * short} of the client's {@code max_tokens}: once, from the target that answered (then the rest
   * of the chain), for the {@code max_tokens} left by the upstream's own count. When no target
   * continues it the answer ends where it stopped, with {@code stop_reason: max_tokens}, as it
   * would have before: that is not a failure.
   */
  private void goOn() throws StreamFailureException {
    upstream.close();
    long spent = splicer.endAttempt();
    ChainResult<Reply> asked = recovery.ask(recovery.order(target, null), splicer.transcript().content(), spent);
    recoveryCalls += asked.calls();
    switch (asked) {
      case ChainResult.Answered<Reply> answered -> {
        recoveries++; // spliced in as any recovery is
        splicer.goOn(recovery.prefills(answered.target()));
        adopt(answered);
      }
      case ChainResult.Cancelled<Reply> cancelled -> throw clientGone();
      default -> toClient.addAll(splicer.finishShort());
    }
  }

  /** Why this break cannot be recovered: null when it can; empty when the upstream's own error says why. */
  private String whyNotRecoverable(Failure failure) {
    if (failure.kind().isFinal() || !failure.mayRetrySameTarget() && !failure.kind().tryNextTarget()) {
      return "";
    }
    if (!recovery.enabled()) {
      return "resuming is off for this route";
    }
    if (!splicer.transcript().recoverable()) {
      return "it broke inside a thinking block, which cannot be resumed";
    }
    if (breaksRecovered >= recovery.settings().maxRecoveries()) {
      return "it broke " + (breaksRecovered + 1) + " times";
    }
    Duration silence = silenceOf(failure);
    if (silence.isPositive() && silent.compareTo(recovery.settings().recoveryWindow()) >= 0) {
      return "it stalled for " + silent.plus(silence).toMillis() + " ms in all, a recovery window ("
          + recovery.settings().recoveryWindow().toMillis() + " ms) already spent in stalls before this one";
    }
    return null;
  }

  /**
   * How long the client waited in silence before {@code failure}: a stall's idle timeout, or a
   * recovery's time-to-first-token timeout; zero for any other break. A stream whose stalls have
   * summed to a recovery window is not recovered from another (a target that keeps stalling would
   * hold the client for every recovery's timeout in turn: 6 × 30 s by default).
   */
  private Duration silenceOf(Failure failure) {
    if (failure.kind() != FailureKind.TIMEOUT) {
      return Duration.ZERO;
    }
    return switch (failure.errorType()) {
      case "stream_stalled" -> recovery.settings().idleTimeout();
      case "first_token_timeout" -> recovery.settings().ttftTimeout();
      default -> Duration.ZERO;
    };
  }

  /** Streams on from {@code answered}: the first answer, or a continuation after the splicer's attempt ended. */
  private void adopt(ChainResult.Answered<Reply> answered) {
    if (target != null) {
      if (continuedBy == null) {
        continuedBy = new ArrayList<>(2);
      }
      continuedBy.add(answered.target());
    }
    target = answered.target();
    completion = answered.completion();
    upstream = answered.response().stream();
  }

  private StreamFailureException clientGone() {
    end(Outcome.CLIENT_GONE);
    return new StreamFailureException(Failure.of(FailureKind.CANCELLED, 0, "cancelled", "the client went away"));
  }

  private void fail(StreamFailureException ended) throws StreamFailureException {
    end(Outcome.FAILED);
    throw ended;
  }

  /** The stream ended by Levee's own error (see {@link #incomplete}), recorded as {@code failure}. */
  private static StreamFailureException endedByLevee(Failure failure, Failure told, String why) {
    return new StreamFailureException(failure, incomplete(failure, told, why));
  }

  /**
   * The error that ends an incomplete answer: its message says how the stream broke ({@code broke})
   * and {@code why} it was not resumed, with how the last recovery call failed ({@code told}, whose
   * type the error takes) when that is not the break itself.
   */
  private static ApiError incomplete(Failure broke, Failure told, String why) {
    String recoveryFailed = told == broke ? ""
        : "; the last recovery call: " + told.errorType() + ": " + told.message();
    return ApiError.of(told, "The answer is incomplete: the upstream stream " + howItBroke(broke) + " ("
        + broke.errorType() + ": " + broke.message() + ") and Levee could not resume it because " + why
        + recoveryFailed + ".");
  }

  /** "was cut" for a cut connection, "stalled" for a stall or a slow first token, else "broke". */
  private static String howItBroke(Failure failure) {
    return switch (failure.kind()) {
      case CONNECTION -> "was cut";
      case TIMEOUT -> "stalled";
      default -> "broke";
    };
  }

  private void end(Outcome outcome) {
    if (!ended) {
      ended = true;
      stats.ended(outcome, recoveries, deltas, splicer.duplicates());
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
