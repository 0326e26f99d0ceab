package dev.levee.anthropic.stream;

import dev.levee.anthropic.message.TokenUsage;
import dev.levee.anthropic.sse.FrameFields;

/**
 * The output tokens the client's answer has cost so far, across the attempts of one stream: the
 * upstream's own count where it gave one, counted high where it did not. Not thread-safe.
 *
 * <p>An attempt reports its output tokens only in its final {@code message_delta}, which a broken
 * attempt never sends (its {@code message_start} says 1). What the client received from it is
 * then counted high ({@link Transcript.Tally#countedHigh()}: 2 bytes a token, at least one a
 * delta) — until a continuation tells the real figure: its {@code message_start} reports the
 * tokens of its whole input, which is the first attempt's input plus the partial answer it
 * continues. The difference Δ between the two totals ({@code input_tokens + cache_creation_input_tokens
 * + cache_read_input_tokens}, which together are the whole input, per the Messages API's usage
 * docs, so a cache hit on one side does not skew it) is the upstream's count of the partial
 * answer. With prefill the partial answer is the final assistant turn, which the first attempt's
 * prompt already opened, so Δ holds nothing else (the API's counts do not match visible content
 * one to one: a token or so either way, where the tokenizer splits the prefill differently from
 * the output, and the trailing whitespace the prefill drops). Without prefill Δ also holds the
 * instruction turn ({@link RecoveryRequest#INSTRUCTION}, some 40 tokens), so the count stays that
 * much high.
 *
 * <p>The rule: Δ replaces the count of the answer up to the recovery when all of these hold, else
 * the count high stays —
 *
 * <ul>
 *   <li>both {@code message_start}s report {@code input_tokens};
 *   <li>the continuation's {@code model} is the first attempt's (another model's tokenizer counts
 *       otherwise, and a fallback's request may differ);
 *   <li>the partial answer holds no thinking (the API bills thinking in full but returns it
 *       summarised, and leaves earlier turns' thinking out of the input);
 *   <li>1 ≤ Δ ≤ the same content counted high, and Δ ≥ one token per {@link #MOST_BYTES_PER_TOKEN}
 *       bytes of it: a Δ outside these is not the partial answer's own count (a request that
 *       differs in more than the partial answer, or an upstream that reports input otherwise).
 * </ul>
 *
 * <p>An attempt that ends with its {@code message_delta} adds its reported output tokens (exact);
 * a broken one adds the larger of its reported figure and its content counted high.
 */
final class OutputCount {

  /**
   * The most UTF-8 bytes a token averages over a whole answer for Δ to be believed: Claude's
   * tokenizers average 3–4.5 (English, code), and only runs of one repeated character come near 16.
   */
  static final int MOST_BYTES_PER_TOKEN = 16;

  private long firstInput = -1; // the first attempt's total input tokens; -1: not reported
  private String firstModel;
  private long tokens; // the answer's output tokens when the current attempt started
  private boolean exact = true; // tokens is the upstream's count (0 before any attempt is)
  private Transcript.Tally since = Transcript.Tally.NONE; // the client's content when the current attempt started

  /** The first attempt's {@code message_start}: the input every Δ is taken from. */
  void first(FrameFields messageStart) {
    firstInput = totalInput(messageStart);
    firstModel = messageStart.model();
  }

  /**
   * A continuation's {@code message_start}: takes its Δ as the count of the
   * answer so far when the rule (see the class doc) allows.
   *
   * @param thinking whether the partial answer holds thinking
   * @return whether it did
   */
  boolean reconcile(FrameFields messageStart, boolean thinking) {
    long input = totalInput(messageStart);
    long delta = input - firstInput;
    boolean usable = firstInput >= 0 && input >= 0 && firstModel != null
        && firstModel.equals(messageStart.model()) && !thinking
        && delta >= 1 && delta <= since.countedHigh() && delta * MOST_BYTES_PER_TOKEN >= since.bytes();
    if (usable) {
      tokens = delta;
      exact = true;
    }
    return usable;
  }

  /**
   * The current attempt ended; the next starts from its count.
   *
   * @param now the client's content now
   * @param reported the attempt's output tokens as it reported them
   * @param finished whether it sent its {@code message_delta} (then {@code reported} is exact)
   * @return the output tokens of the answer so far
   */
  long ended(Transcript.Tally now, long reported, boolean finished) {
    tokens += finished ? reported : Math.max(reported, now.since(since).countedHigh());
    exact = exact && finished;
    since = now;
    return tokens;
  }

  /** The output tokens of the answer up to the current attempt (as of its start, or its Δ). */
  long tokens() {
    return tokens;
  }

  /** Whether {@link #tokens()} is the upstream's count rather than counted high. */
  boolean exact() {
    return exact;
  }

  /** {@code input_tokens} and the cache counters, or -1 when {@code input_tokens} is missing or not an integer. */
  private static long totalInput(FrameFields messageStart) {
    if (!messageStart.hasUsageCount("input_tokens")) {
      return -1;
    }
    TokenUsage usage = messageStart.tokenUsage();
    return usage.input() + usage.cacheCreation() + usage.cacheRead();
  }
}
