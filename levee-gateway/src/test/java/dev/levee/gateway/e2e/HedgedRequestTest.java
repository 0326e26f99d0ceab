package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.models.messages.Message;
import dev.levee.core.chain.Target;
import dev.levee.emulator.LogEntry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, hedged requests, on the wire: a primary that is slow to its first byte gets a hedge on
 * the next target after {@code hedge.after}; the hedge answers, the primary's connection is closed
 * (the emulator sees its client go early), and the hedge spent one retry-budget token.
 *
 * <p>Real time on purpose: what is measured is the wire. The upper bound on the answer's time is
 * the primary's own 3 s (an answer before it can only be the hedge's), so a loaded machine does not
 * make the test flaky; the figure itself is printed.
 */
class HedgedRequestTest {

  private static final String CONFIG = """
      models:
        s:
          chain: [emu/emu-slow-ttft-3000, emu/emu-ok]
          hedge: { after: 500ms }
      policy:
        deadline: 30s
        attempt-timeout: 10s
        min-attempt-time: 10ms
        retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms }
        retry-budget: { max: 100, ratio: 0 }
        stream: { ttft-timeout: 10s, idle-timeout: 5s }
      """;

  @Test
  void aSlowJsonPrimaryIsHedgedAndTheFallbackAnswersAfterTheDelay() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      warmUp(h);
      long start = System.nanoTime();
      Message message = h.sdk.messages().create(Harness.params("s", "hedge me"));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      System.out.println("hedged JSON answer after " + took.toMillis() + " ms");

      assertThat(message.model().asString()).isEqualTo("emu-ok");
      assertThat(took).isBetween(Duration.ofMillis(500), Duration.ofMillis(2_900));
      assertPrimaryClosedAndOneTokenSpent(h);
      assertThat(h.awaitMetrics("levee_hedges_total{outcome=\"won\"} 1.0"))
          .contains("levee_hedges_total{outcome=\"won\"} 1.0");
    }
  }

  @Test
  void aSlowStreamingPrimaryIsHedgedAndTheFallbacksStreamIsWhole() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      String prompt = "hedge this stream please";
      warmUp(h);
      long start = System.nanoTime();
      Message message = h.streamed(Harness.params("s", prompt));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      System.out.println("hedged stream complete after " + took.toMillis() + " ms");

      assertThat(took).isLessThan(Duration.ofMillis(2_900));
      assertPrimaryClosedAndOneTokenSpent(h);
      assertThat(message.model().asString()).isEqualTo("emu-ok");
      assertThat(message.stopReason()).hasValueSatisfying(r -> assertThat(r.asString()).isEqualTo("end_turn"));
      assertThat(Harness.text(message)).isEqualTo(h.expectedText(prompt)); // asks emu-ok itself: last
    }
  }

  @Test
  void aPrimaryThatAnswersBeforeTheDelayIsNotHedged() throws Exception {
    String config = CONFIG.replace("emu/emu-slow-ttft-3000", "emu/claude-quick").replace("500ms", "2s");
    try (Harness h = Harness.start(config)) {
      Message message = h.sdk.messages().create(Harness.params("s", "no hedge needed"));

      assertThat(message.model().asString()).isEqualTo("claude-quick");
      assertThat(h.attempts("emu-ok")).isEmpty();
      assertThat(h.gateway.chain().budgets().of(Target.parse("emu/emu-ok")).remaining()).isEqualTo(100.0);
    }
  }

  /** One unhedged answer first, so that the timed request pays no class loading or connection set-up. */
  private static void warmUp(Harness h) {
    h.sdk.messages().create(Harness.params("claude-warm-up", "warm up"));
    Harness.streamed(h.sdk, Harness.params("claude-warm-up", "warm up"));
  }

  private static void assertPrimaryClosedAndOneTokenSpent(Harness h) throws Exception {
    List<LogEntry> log = h.awaitLog(l -> l.stream().anyMatch(e -> e.model().equals("emu-slow-ttft-3000")
        && e.clientGoneEarly()));
    assertThat(log).filteredOn(e -> e.model().equals("emu-slow-ttft-3000")).singleElement()
        .satisfies(e -> assertThat(e.clientGoneEarly()).as("the primary's connection was closed").isTrue());
    assertThat(log).filteredOn(e -> e.model().equals("emu-ok")).hasSize(1);
    assertThat(h.gateway.chain().budgets().of(Target.parse("emu/emu-ok")).remaining())
        .as("the hedge spent one token of its own target's budget").isEqualTo(99.0);
    assertThat(h.gateway.chain().budgets().of(Target.parse("emu/emu-slow-ttft-3000")).remaining()).isEqualTo(100.0);
  }
}
