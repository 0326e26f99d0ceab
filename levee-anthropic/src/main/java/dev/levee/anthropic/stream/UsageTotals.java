package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.message.TokenUsage;
import dev.levee.anthropic.sse.FrameFields;
import dev.levee.anthropic.sse.SseEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Token usage summed across the attempts of one client stream, as the upstream reported it: each
 * attempt's last known figure of every integral usage field, added up — except the output tokens,
 * which are those of the answer the client received, as one unbroken answer's would be: the
 * answer's count before the last attempt ({@link OutputCount}: the upstream's own where a
 * continuation's input told it, else counted high) plus the last attempt's own, never more than
 * {@code max_tokens}. Output an attempt made that the client never got (a tool call held when the
 * stream broke, the words a continuation repeated) is not in it. The same figures split by attempt
 * ({@link #byAttempt()}) tell which attempt used which tokens, for a stream whose attempts were
 * served by different models. Not thread-safe.
 */
final class UsageTotals {

  private static final String INPUT = "input_tokens";
  private static final String OUTPUT = "output_tokens";
  private static final String CACHE_READ = "cache_read_input_tokens";
  private static final String CACHE_CREATION = "cache_creation_input_tokens";

  private final long maxTokens;
  private Map<String, Long> banked; // finished attempts; null until one broke (most streams never do)
  private List<Ended> ended; // the same attempts one by one, in order; null with banked
  private final Map<String, Long> current = new HashMap<>(8); // the attempt now streaming

  /**
   * An attempt that ended.
   *
   * @param own its usage as it reported it
   * @param answerAfter the output tokens of the client's answer once it ended (as {@link #bank} and
   *     {@link #rebank} were told it), never fewer than after the attempt before it
   */
  private record Ended(TokenUsage own, long answerAfter) {}

  /**
   * @param maxTokens the {@code max_tokens} the stream was asked for, which its output tokens never
   *     exceed (a count made high is lowered to it); -1 when unknown
   */
  UsageTotals(long maxTokens) {
    this.maxTokens = maxTokens;
  }

  /** Takes the integral members of the {@code usage} of a {@code message_start} or {@code message_delta}. */
  void read(FrameFields usage) {
    for (int i = 0; i < usage.usageCounts(); i++) {
      current.merge(usage.usageName(i), usage.usageCount(i), Math::max);
    }
  }

  /** The current attempt's output tokens as it reported them so far (1 from a {@code message_start}). */
  long currentOutput() {
    return current.getOrDefault(OUTPUT, 0L);
  }

  /**
   * The current attempt ended (broke, or stopped short of the client's limit): its figures are
   * added to the banked ones, and a new attempt starts from zero.
   *
   * @param answer the output tokens of the client's answer so far ({@link OutputCount}), which
   *     replace the sum of the attempts' own: never more than {@code max_tokens}, as no upstream
   *     answer outgrows it, so a count above it is a count made too high
   */
  void bank(long answer) {
    if (banked == null) {
      banked = new HashMap<>(8);
      ended = new ArrayList<>(2);
    }
    ended.add(new Ended(own(), 0));
    current.forEach((k, v) -> banked.merge(k, v, Long::sum));
    current.clear();
    rebank(answer);
  }

  /**
   * The answer's output tokens before the current attempt, now better known ({@link OutputCount#reconcile}):
   * the last ended attempt ends there, and none before it later.
   */
  void rebank(long answer) {
    if (banked != null) {
      long output = capped(answer);
      banked.put(OUTPUT, output);
      int last = ended.size() - 1;
      ended.set(last, new Ended(ended.get(last).own(), output));
      for (int i = last - 1; i >= 0 && ended.get(i).answerAfter() > output; i--) {
        ended.set(i, new Ended(ended.get(i).own(), output));
      }
    }
  }

  /**
   * The usage split by attempt, in the order they streamed, the current attempt last (all zeros
   * when none streamed since the last ended): each attempt's own input and cache tokens, and as
   * output tokens its share of the client's answer — for an attempt that ended, the answer's output
   * tokens after it less those before it; for the current one, its own, within {@code max_tokens}
   * once an attempt has ended. The parts add up to the usage the client's final {@code
   * message_delta} reports (the one {@link #summed} or {@link #maxTokensDelta} writes, or the
   * upstream's own when no attempt ended). All counts in tokens.
   */
  List<TokenUsage> byAttempt() {
    TokenUsage now = own();
    if (ended == null) {
      return List.of(now); // as it came: the client's message_delta goes unchanged
    }
    List<TokenUsage> parts = new ArrayList<>(ended.size() + 1);
    long before = 0;
    for (Ended attempt : ended) {
      parts.add(withOutput(attempt.own(), attempt.answerAfter() - before));
      before = attempt.answerAfter();
    }
    parts.add(withOutput(now, capped(before + now.output()) - before)); // before is capped: never negative
    return parts;
  }

  /** The current attempt's usage as it reported it so far. */
  private TokenUsage own() {
    return new TokenUsage(current.getOrDefault(INPUT, 0L), current.getOrDefault(OUTPUT, 0L),
        current.getOrDefault(CACHE_READ, 0L), current.getOrDefault(CACHE_CREATION, 0L));
  }

  private static TokenUsage withOutput(TokenUsage usage, long output) {
    return new TokenUsage(usage.input(), output, usage.cacheRead(), usage.cacheCreation());
  }

  private long capped(long output) {
    return maxTokens > 0 ? Math.min(maxTokens, output) : output;
  }

  /**
   * The final {@code message_delta} of a stream Levee ends itself because its last break left no
   * output tokens to continue with: {@code stop_reason: max_tokens}, as an unbroken answer that
   * reached its {@code max_tokens} ends, with the usage of every attempt so far. Call after {@link
   * #bank}.
   */
  SseEvent maxTokensDelta() {
    ObjectNode data = Json.MAPPER.createObjectNode();
    data.put("type", "message_delta");
    data.putObject("delta").put("stop_reason", "max_tokens").putNull("stop_sequence");
    ObjectNode usage = data.putObject("usage");
    if (banked != null) {
      banked.forEach(usage::put);
    }
    return new SseEvent("message_delta", Json.string(data), data);
  }

  /** Whether an attempt has broken, so that a final {@code message_delta} needs its usage {@link #summed}. */
  boolean summing() {
    return banked != null;
  }

  /**
   * The final {@code message_delta} (its tree: {@code data}) with its usage summed over every
   * attempt. Only when {@link #summing()}: with one attempt the event goes as it came.
   */
  SseEvent summed(JsonNode data) {
    ObjectNode copy = ((ObjectNode) data).deepCopy();
    ObjectNode usage = copy.withObjectProperty("usage");
    Map<String, Long> total = new HashMap<>(banked);
    current.forEach((k, v) -> total.merge(k, v, Long::sum));
    total.put(OUTPUT, capped(total.getOrDefault(OUTPUT, 0L)));
    total.forEach(usage::put);
    return new SseEvent("message_delta", Json.string(copy), copy);
  }
}
