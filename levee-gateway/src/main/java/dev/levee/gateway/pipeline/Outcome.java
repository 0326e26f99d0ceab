package dev.levee.gateway.pipeline;

import dev.levee.anthropic.message.TokenUsage;
import dev.levee.anthropic.stream.ResilientStream;
import dev.levee.anthropic.stream.TargetUsage;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.AttemptRecord;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import java.util.List;
import java.util.function.Supplier;

/**
 * What going upstream came to, as the relay hands it on: nothing here has been settled, cached
 * or (but for a stream's events) sent yet.
 */
sealed interface Outcome {

  /** Upstream calls made for this request, a stream's recovery included. */
  int calls();

  /** A whole answer (JSON), to be settled, cached and sent. */
  record Answered(ChainResult.Answered<Reply> answered, int calls) implements Outcome {}

  /**
   * A stream whose events have been relayed; its end (last chunk, or abort) is still to be sent.
   *
   * @param first the answer that committed the stream (its headers went out with the first byte)
   * @param ended how it ended
   * @param last the target that answered last (another one when a recovery moved on)
   * @param recoveries continuations spliced in
   * @param message the whole answer for the cache, assembled when asked (once at most: the cache
   *     asks only when it will store it); null when it did not complete or may not be cached
   * @param usage the tokens the stream used, by the target that served them ({@link
   *     ResilientStream#usage()}): each counted and priced under its own target's model
   * @param failure why it {@link ResilientStream.Outcome#FAILED failed} (what its {@code event:
   *     error} said); null otherwise
   */
  record Streamed(ChainResult.Answered<Reply> first, ResilientStream.Outcome ended, Target last, int recoveries,
      int calls, Supplier<byte[]> message, List<TargetUsage> usage, Failure failure) implements Outcome {

    /** The tokens of the whole stream, every target's together (what its final {@code message_delta} reports). */
    TokenUsage totalUsage() {
      TokenUsage total = TokenUsage.NONE;
      for (TargetUsage part : usage) {
        total = total.plus(part.usage());
      }
      return total;
    }
  }

  /** The client's own error, to reach it at once with the upstream's status and body (reply may be null). */
  record Rejected(Target target, Failure failure, Reply reply, int calls) implements Outcome {}

  /** Every target was tried, skipped or ran out of time; {@code steps} are the chain's, for metrics. */
  record Exhausted(FailureResponse failure, int calls, List<AttemptRecord> steps) implements Outcome {}

  /** The client went away before an answer. */
  record Cancelled(int calls) implements Outcome {}
}
