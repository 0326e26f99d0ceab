package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.SseException;
import com.anthropic.models.messages.ContentBlock;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.Tool;
import dev.levee.core.chain.Target;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 3: every stream fault × {same target, prefill fallback, no-prefill fallback}. Through the
 * gateway, the message the official Java SDK accumulates equals the uninterrupted answer — one
 * id, the same text, {@code end_turn} — or the SDK raises. It never returns a truncated message.
 */
class StreamRecoveryTest {

  private static final String STREAM_POLICY = """
      policy:
        deadline: 10s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms }
        retry-budget: { max: 100, ratio: 0.5 }
        stream: { ttft-timeout: 1s, idle-timeout: 600ms, recovery-window: 8s }
      """;

  private static final EmulatorOptions EMULATOR = EmulatorOptions.builder().pingInterval(Duration.ofMillis(100)).build();

  enum Mode {
    /** The faulty model alone: its continuation is its own second attempt (faults strike once). */
    SAME_TARGET,
    /** The faulty model always fails; its breaker opens at once and an older model continues by prefill. */
    PREFILL_FALLBACK,
    /** As above, but the fallback rejects prefill: it continues from a user turn. */
    NO_PREFILL_FALLBACK
  }

  static Stream<Arguments> faults() {
    return Stream.of("cut-5", "error-5", "stall-5", "malformed-5", "dup", "slow-ttft-3000")
        .flatMap(fault -> Stream.of(Mode.values()).map(mode -> Arguments.of(fault, mode)));
  }

  private static String config(String fault, Mode mode) {
    boolean everyAttempt = !fault.equals("dup") && !fault.startsWith("slow-ttft");
    String primary = "emu/emu-" + fault + (mode != Mode.SAME_TARGET && everyAttempt ? "-always" : "");
    String chain = switch (mode) {
      case SAME_TARGET -> "[" + primary + "]";
      case PREFILL_FALLBACK -> "[" + primary + ", emu/emu-ok]";
      case NO_PREFILL_FALLBACK -> "[" + primary + ", emu/emu-ok-noprefill]";
    };
    String breaker = mode == Mode.SAME_TARGET ? "default" : "{ failures: 1, open-for: 60s }";
    String policy = fault.equals("dup") // an upstream known to replay events: drop the copies
        ? STREAM_POLICY.replace("recovery-window: 8s }", "recovery-window: 8s, duplicates: drop }") : STREAM_POLICY;
    return "models:\n  s:\n    chain: " + chain + "\n" + policy + "  breaker: " + breaker + "\n";
  }

  @ParameterizedTest(name = "{0} / {1}")
  @MethodSource("faults")
  void theSdkGetsTheUninterruptedAnswerOrRaises(String fault, Mode mode) throws Exception {
    try (Harness h = Harness.start(EMULATOR, config(fault, mode))) {
      String prompt = "recover " + fault + " " + mode;
      String expected = h.expectedText(prompt);

      if (fault.startsWith("slow-ttft") && mode == Mode.SAME_TARGET) {
        // the only target never starts in time: nothing reached the client, and it fails whole
        assertThatThrownBy(() -> h.streamed(Harness.params("s", prompt))).isNotInstanceOf(AssertionError.class);
        return;
      }
      Message message = h.streamed(Harness.params("s", prompt));

      assertThat(message.content()).hasSize(1);
      assertThat(Harness.text(message)).isEqualTo(expected);
      assertThat(message.stopReason()).hasValueSatisfying(r -> assertThat(r.asString()).isEqualTo("end_turn"));
      assertThat(message.id()).startsWith("msg_");
      if (!fault.equals("dup") && !fault.startsWith("slow-ttft")) {
        List<LogEntry> log = h.emulator.log();
        assertThat(log).as("a continuation was asked for").hasSizeGreaterThanOrEqualTo(2);
        String continuation = log.get(log.size() - 1).continuation();
        assertThat(continuation).as("how the last attempt continued").isNotNull();
      }
    }
  }

  @Test
  void aNoPrefillFallbackIsNeverSentAPrefill() throws Exception {
    try (Harness h = Harness.start(EMULATOR, config("cut-5", Mode.NO_PREFILL_FALLBACK))) {
      h.streamed(Harness.params("s", "never prefill"));

      LogEntry fallback = h.attempts("emu-ok-noprefill").get(0);
      assertThat(fallback.lastRole()).isEqualTo("user");
      assertThat(fallback.status()).isEqualTo(200);
    }
  }

  @Test
  void withResumeOffABreakAfterTheFirstTokenEndsInAnErrorTheSdkRaises() throws Exception {
    String config = "models:\n  s:\n    chain: [emu/emu-cut-5]\n    resume: off\n" + STREAM_POLICY;
    try (Harness h = Harness.start(EMULATOR, config)) {
      assertThatThrownBy(() -> h.streamed(Harness.params("s", "no resume"))).isInstanceOf(SseException.class)
          .hasMessageContaining("incomplete");
      assertThat(h.emulator.log()).hasSize(1);
    }
  }

  @Test
  void aStallAfterTwentyDeltasIsDetectedDespitePingsAndResumed() throws Exception {
    try (Harness h = Harness.start(EMULATOR, "models:\n  s:\n    chain: [emu/emu-stall-20]\n" + STREAM_POLICY)) {
      String prompt = "a long stall after twenty deltas, with many more words to come in this answer";
      Message message = h.streamed(Harness.params("s", prompt));

      assertThat(Harness.text(message)).isEqualTo(h.expectedText(prompt));
      List<LogEntry> attempts = h.attempts("emu-stall-20");
      assertThat(attempts.get(0).action()).isEqualTo("stall@20");
      h.awaitLog(log -> log.get(0).clientGoneEarly()); // the stalled upstream was closed
    }
  }

  @Test
  void aCutInsideAToolCallNeverGivesTheClientPartialJson() throws Exception {
    try (Harness h = Harness.start(EMULATOR, "models:\n  s:\n    chain: [emu/emu-ok]\n" + STREAM_POLICY)) {
      MessageCreateParams healthyParams = toolParams("emu-ok");
      Message healthy = directStream(h, healthyParams);
      int textDeltas = textDeltasBeforeTool(h, healthyParams);
      String model = "emu-cut-" + (textDeltas + 2);
      try (Harness cut = Harness.start(EMULATOR, "models:\n  s:\n    chain: [emu/" + model + "]\n" + STREAM_POLICY)) {
        Message recovered = cut.streamed(toolParams("s"));

        assertThat(recovered.content()).hasSize(2);
        assertThat(Harness.text(recovered)).isEqualTo(Harness.text(healthy));
        assertThat(recovered.content().get(1).toolUse()).hasValueSatisfying(tool -> {
          assertThat(tool.name()).isEqualTo("get_weather");
          assertThat(tool._input()).isEqualTo(healthy.content().get(1).toolUse().orElseThrow()._input());
        });
        assertThat(recovered.stopReason()).hasValueSatisfying(r -> assertThat(r.asString()).isEqualTo("tool_use"));
        assertThat(cut.emulator.log().get(0).action()).isEqualTo("cut@" + (textDeltas + 2));
      }
    }
  }

  @Test
  void aClientThatDisconnectsMidStreamClosesTheUpstreamWithoutPenalty() throws Exception {
    try (Harness h = Harness.start(EMULATOR, "models:\n  s:\n    chain: [emu/emu-stall-5-always]\n" + STREAM_POLICY
        .replace("idle-timeout: 600ms", "idle-timeout: 30s"))) {
      AnthropicClient client = h.sdk(Duration.ofSeconds(30));
      try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(Harness.params("s", "leave"))) {
        Iterator<RawMessageStreamEvent> events = stream.stream().iterator();
        int deltas = 0;
        while (deltas < 5 && events.hasNext()) {
          if (events.next().isContentBlockDelta()) {
            deltas++;
          }
        }
        assertThat(deltas).isEqualTo(5);
      } // the client goes away here, mid-stall
      long closedAt = System.nanoTime();
      h.awaitLog(log -> log.size() == 1 && log.get(0).clientGoneEarly());
      assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).isLessThan(Duration.ofSeconds(1));
      assertThat(h.gateway.chain().breakers().of(new Target("emu", "emu-stall-5-always")).snapshot().recentFailures()).isZero();
    }
  }

  @Test
  void aBreakInsideThinkingBeforeItsSignatureEndsInAnError() throws Exception {
    try (Harness h = Harness.start(EMULATOR, "models:\n  s:\n    chain: [emu/emu-cut-3]\n" + STREAM_POLICY)) {
      assertThatThrownBy(() -> h.streamed(thinkingParams("s", "think then break"))).isInstanceOf(SseException.class)
          .hasMessageContaining("thinking");
    }
  }

  @Test
  void aBreakRightAfterTheThinkingSignatureIsResumed() throws Exception {
    assertThinkingBreakRecovers(1);
  }

  @Test
  void aBreakInsideTheTextAfterThinkingIsResumed() throws Exception {
    assertThinkingBreakRecovers(4);
  }

  /** Breaks {@code afterSignature} deltas after the thinking block's last (signature) delta. */
  private void assertThinkingBreakRecovers(int afterSignature) throws Exception {
    String prompt = "think, then answer " + afterSignature;
    try (Harness h = Harness.start(EMULATOR, "models:\n  s:\n    chain: [emu/emu-ok]\n" + STREAM_POLICY)) {
      Message healthy = directStream(h, thinkingParams("emu-ok", prompt));
      int thinkingDeltas = thinkingDeltas(h, thinkingParams("emu-ok", prompt));
      String model = "emu-cut-" + (thinkingDeltas + afterSignature - 1);
      try (Harness cut = Harness.start(EMULATOR, "models:\n  s:\n    chain: [emu/" + model + "]\n" + STREAM_POLICY)) {
        Message recovered = cut.streamed(thinkingParams("s", prompt));

        assertThat(recovered.content()).hasSize(2);
        ContentBlock thinking = recovered.content().get(0);
        assertThat(thinking.thinking()).hasValueSatisfying(t -> {
          assertThat(t.thinking()).isEqualTo(healthy.content().get(0).thinking().orElseThrow().thinking());
          assertThat(t.signature()).isEqualTo(healthy.content().get(0).thinking().orElseThrow().signature());
        });
        assertThat(Harness.text(recovered)).isEqualTo(Harness.text(healthy));
        assertThat(cut.emulator.log()).hasSizeGreaterThanOrEqualTo(2);
      }
    }
  }

  private static MessageCreateParams thinkingParams(String model, String prompt) {
    return MessageCreateParams.builder().model(model).maxTokens(2048).enabledThinking(1024).addUserMessage(prompt).build();
  }

  private static MessageCreateParams toolParams(String model) {
    Tool tool = Tool.builder().name("get_weather").inputSchema(Tool.InputSchema.builder()
        .properties(Tool.InputSchema.Properties.builder()
            .putAdditionalProperty("city", JsonValue.from(Map.of("type", "string"))).build())
        .build()).build();
    return MessageCreateParams.builder().model(model).maxTokens(1024).addTool(tool)
        .addUserMessage("What is the weather in Paris?").build();
  }

  /** The emulator's uninterrupted streamed answer, asked directly. */
  private static Message directStream(Harness h, MessageCreateParams params) {
    AnthropicClient direct = AnthropicOkHttpClient.builder().baseUrl(h.emulator.baseUrl()).apiKey("k").maxRetries(0).build();
    try {
      return Harness.streamed(direct, params);
    } finally {
      direct.close();
    }
  }

  private static int textDeltasBeforeTool(Harness h, MessageCreateParams params) {
    return (int) directEvents(h, params).stream().takeWhile(e -> !(e.isContentBlockStart()
        && e.asContentBlockStart().contentBlock().isToolUse())).filter(RawMessageStreamEvent::isContentBlockDelta).count();
  }

  /** Content deltas of the thinking block, its signature included. */
  private static int thinkingDeltas(Harness h, MessageCreateParams params) {
    return (int) directEvents(h, params).stream()
        .filter(e -> e.isContentBlockDelta() && e.asContentBlockDelta().index() == 0).count();
  }

  private static List<RawMessageStreamEvent> directEvents(Harness h, MessageCreateParams params) {
    AnthropicClient direct = AnthropicOkHttpClient.builder().baseUrl(h.emulator.baseUrl()).apiKey("k").maxRetries(0).build();
    try (StreamResponse<RawMessageStreamEvent> stream = direct.messages().createStreaming(params)) {
      return stream.stream().toList();
    } finally {
      direct.close();
    }
  }
}
