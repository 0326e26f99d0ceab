package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issues 2 and 3 through the official TypeScript SDK: {@code stream.mjs} streams with {@code
 * client.messages.stream(...)} and {@code finalMessage()}, retries off, against a gateway in front
 * of the emulator. The SDK's final message is the uninterrupted answer — one id, the same text,
 * {@code end_turn} — or the SDK raises; it never returns a truncated message.
 *
 * <p>This matters more for this SDK than for the Java one: its {@code MessageStream} hands back
 * whatever it accumulated when a stream ends cleanly without {@code message_stop}, so only an
 * {@code event: error} from the gateway makes it raise.
 */
class TypeScriptSdkTest {

  /**
   * No test here waits for a timeout (a cut is seen when the connection closes), so the limits
   * are generous: a cold JVM on a busy machine must not turn a healthy attempt into a timeout.
   */
  private static final String STREAM_POLICY = """
      policy:
        deadline: 20s
        attempt-timeout: 10s
        min-attempt-time: 10ms
        retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms }
        breaker: default
        retry-budget: { max: 100, ratio: 0.5 }
        stream: { ttft-timeout: 5s, idle-timeout: 5s, recovery-window: 10s }
      """;

  /**
   * Deltas 50 ms apart, so that the gateway has read the first one (its commit point) well before
   * {@code emu-cut-5} closes the connection. Closer together, a slow reader can lose the race:
   * the JDK HttpClient's body stream throws at the cut even while earlier bytes wait unread in
   * its queue, the attempt fails before the commit point, and the gateway retries from scratch
   * instead of resuming — correct, but not the path these tests are about.
   */
  private static final EmulatorOptions PACED = EmulatorOptions.builder().deltaDelay(Duration.ofMillis(50)).build();

  private static TypeScriptSdk sdk;

  @BeforeAll
  static void installTheSdk() throws Exception {
    sdk = TypeScriptSdk.installed();
  }

  @Test
  void aStreamThroughTheGatewayIsTheEmulatorsAnswer() throws Exception {
    try (Harness h = Harness.start("models:\n  s:\n    chain: [emu/emu-ok]\n" + STREAM_POLICY)) {
      String prompt = "stream through the gateway with the TypeScript SDK";

      TypeScriptSdk.Result result = sdk.stream(h.gateway.baseUrl(), "s", prompt);

      assertThat(result.ok()).as("the SDK succeeded: %s", result).isTrue();
      assertThat(result.text()).isEqualTo(h.expectedText(prompt));
      assertThat(result.stopReason()).isEqualTo("end_turn");
      assertThat(result.id()).startsWith("msg_");
      assertThat(result.blocks()).isEqualTo(1);
      assertThat(result.starts()).containsExactly(result.id());
      List<LogEntry> attempts = h.attempts("emu-ok");
      assertThat(attempts).hasSize(2); // the SDK's stream, then expectedText's direct call
      assertThat(attempts.get(0).stream()).isTrue();
      assertThat(attempts.get(0).action()).isEqualTo("ok");
    }
  }

  @Test
  void aStreamCutMidwayIsResumedIntoTheUninterruptedAnswer() throws Exception {
    try (Harness h = Harness.start(PACED, "models:\n  s:\n    chain: [emu/emu-cut-5]\n" + STREAM_POLICY)) {
      String prompt = "a TypeScript SDK stream with a cut";

      TypeScriptSdk.Result result = sdk.stream(h.gateway.baseUrl(), "s", prompt);

      assertThat(result.ok()).as("the SDK succeeded: %s", result).isTrue();
      assertThat(result.text()).isEqualTo(h.expectedText(prompt));
      assertThat(result.stopReason()).isEqualTo("end_turn");
      assertThat(result.blocks()).isEqualTo(1);
      assertThat(result.starts()).as("one message_start, one id").containsExactly(result.id());
      List<LogEntry> attempts = h.attempts("emu-cut-5");
      assertThat(attempts).hasSizeGreaterThanOrEqualTo(2);
      assertThat(attempts.get(0).action()).isEqualTo("cut@5");
      assertThat(attempts.get(attempts.size() - 1).continuation()).as("the resumed attempt continued: %s", attempts)
          .isNotNull();
    }
  }

  @Test
  void withResumeOffACutStreamMakesTheSdkRaise() throws Exception {
    String config = "models:\n  s:\n    chain: [emu/emu-cut-5]\n    resume: off\n" + STREAM_POLICY;
    try (Harness h = Harness.start(PACED, config)) {
      TypeScriptSdk.Result result = sdk.stream(h.gateway.baseUrl(), "s", "no resume for the TypeScript SDK");

      assertThat(result.ok()).as("the SDK must raise, not return a truncated message: %s", result).isFalse();
      assertThat(result.error()).as("an event: error reached the SDK").isEqualTo("APIError");
      assertThat(result.message()).contains("incomplete").contains("resuming is off");
      assertThat(h.emulator.log()).hasSize(1);
    }
  }

  /**
   * Regression: a content delta equal byte for byte to the one before it was dropped as a
   * duplicate, so a chunk the model really streams twice ({@code " narrow"}, {@code " narrow"})
   * reached every client with a word missing. Repeats are now only counted unless the route says
   * {@code duplicates: drop}.
   */
  @Test
  void aChunkTheModelStreamsTwiceInARowReachesTheSdkTwice() throws Exception {
    try (Harness h = Harness.start("models:\n  s:\n    chain: [emu/emu-ok]\n" + STREAM_POLICY)) {
      String prompt = "a word said twice 244"; // the emulator streams ..., " narrow", " narrow", ...
      String expected = h.expectedText(prompt);
      assertThat(expected).contains("narrow narrow");

      TypeScriptSdk.Result result = sdk.stream(h.gateway.baseUrl(), "s", prompt);

      assertThat(result.ok()).as("the SDK succeeded: %s", result).isTrue();
      assertThat(result.text()).isEqualTo(expected);
    }
  }
}
