package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.models.messages.Message;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, "hand off quickly": after an attempt timeout or a stall on a target, the next attempt
 * goes to the next target of the chain; the silent target is retried only when it is the last one
 * left, and a target that stalled is not the first choice for its own recovery.
 *
 * <p>The hang test keeps real time on purpose: what it measures is the wire (an upstream that
 * never sends its headers, cut off by the attempt timeout of the HTTP call).
 */
class HandOffTest {

  @Test
  void aHangingPrimaryIsLeftAfterOneAttemptTimeoutAndTheFallbackAnswersInTime() throws Exception {
    String config = """
        models:
          s:
            chain: [emu/emu-hang, emu/emu-ok]
        policy:
          deadline: 30s
          attempt-timeout: 8s
          retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms }
        """;
    try (Harness h = Harness.start(config)) {
      long start = System.nanoTime();
      Message message = h.sdk.messages().create(Harness.params("s", "are you there"));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(message.model().asString()).isEqualTo("emu-ok");
      assertThat(took).isBetween(Duration.ofSeconds(8), Duration.ofMillis(9_500));
      List<LogEntry> log = h.awaitLog(l -> l.stream().anyMatch(e -> e.model().equals("emu-hang") && e.clientGoneEarly()));
      assertThat(log).filteredOn(e -> e.model().equals("emu-hang")).hasSize(1);
    }
  }

  @Test
  void aStalledStreamIsRecoveredByTheFallbackAndThePrimaryIsAskedOnce() throws Exception {
    String config = """
        models:
          s:
            chain: [emu/emu-stall-8, emu/emu-ok]
        policy:
          deadline: 30s
          retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms }
          stream: { idle-timeout: 2s }
        """;
    EmulatorOptions pings = EmulatorOptions.builder().pingInterval(Duration.ofMillis(500)).build();
    try (Harness h = Harness.start(pings, config)) {
      String prompt = "a stall after eight deltas, with more words still to come in this answer";

      Message message = h.streamed(Harness.params("s", prompt));

      assertThat(Harness.text(message)).isEqualTo(h.expectedText(prompt));
      assertThat(message.stopReason()).hasValueSatisfying(r -> assertThat(r.asString()).isEqualTo("end_turn"));
      assertThat(h.attempts("emu-stall-8")).singleElement()
          .satisfies(e -> assertThat(e.action()).isEqualTo("stall@8"));
      assertThat(h.attempts("emu-ok")).as("the fallback continued the answer (the other call is the test's own)")
          .filteredOn(e -> e.continuation() != null).hasSize(1);
    }
  }
}
