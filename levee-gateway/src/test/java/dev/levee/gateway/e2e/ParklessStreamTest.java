package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.client.AnthropicClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.sun.management.HotSpotDiagnosticMXBean;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.pipeline.StreamThresholds;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11: while many streams are in flight (here forced for every stream), a stream waiting
 * for its upstream's next delta holds no thread — a parked virtual thread keeps its frozen stack,
 * 7.3 KB of a waiting stream's ~21.7 KB at 9,900 streams — and still relays the whole answer.
 */
class ParklessStreamTest {

  private static final Pattern STREAM_THREAD = Pattern.compile("\"levee-stream-\\d+\"");

  private static final String PROMPT = "a slow answer whose deltas come apart";
  private static final EmulatorOptions SLOW = EmulatorOptions.builder().deltaDelay(Duration.ofMillis(100)).build();

  @TempDir
  Path dumps;
  private int dumpCount;

  @BeforeEach
  void everyStreamWaitsWithNoThread() {
    StreamThresholds.everyStreamWaitsWithNoThread();
  }

  @AfterEach
  void restore() {
    StreamThresholds.restore();
  }

  @Test
  void aStreamWaitingBetweenDeltasHoldsNoThreadAndTheClientGetsTheWholeAnswer() throws Exception {
    try (Harness h = Harness.start(SLOW, "models:\n  s:\n    chain: [emu/emu-ok]\n")) {
      Relayed relayed = relay(h);

      assertThat(relayed.deltasWithNoThread()).as("deltas at which no levee-stream thread was alive, of %d", relayed.deltas())
          .isGreaterThan(relayed.deltas() / 2);
      assertThat(relayed.text()).isEqualTo(h.expectedText(PROMPT));
    }
  }

  @Test
  void aControlAStreamParkedInItsReadsIsSeenHoldingItsThread() throws Exception {
    StreamThresholds.everyStreamOnItsOwnThread(); // the wait with no thread off: the check must see the thread
    try (Harness h = Harness.start(SLOW, "models:\n  s:\n    chain: [emu/emu-ok]\n")) {
      Relayed relayed = relay(h);

      assertThat(relayed.deltasWithNoThread()).as("of %d deltas (a dump may miss a thread as it mounts)", relayed.deltas())
          .isLessThan(relayed.deltas() / 2);
      assertThat(relayed.text()).isEqualTo(h.expectedText(PROMPT));
    }
  }

  private record Relayed(int deltas, int deltasWithNoThread, String text) {}

  /** Streams {@link #PROMPT}, looking at the live threads as each content delta arrives (after its flush). */
  private Relayed relay(Harness h) throws Exception {
    AnthropicClient client = h.sdk(Duration.ofSeconds(30));
    MessageAccumulator accumulator = MessageAccumulator.create();
    int deltas = 0;
    int withNoThread = 0;
    try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(Harness.params("s", PROMPT))) {
      Iterator<RawMessageStreamEvent> events = stream.stream().iterator();
      while (events.hasNext()) {
        RawMessageStreamEvent event = events.next();
        accumulator.accumulate(event);
        if (event.isContentBlockDelta()) {
          deltas++;
          withNoThread += streamThreadsAlive() == 0 ? 1 : 0; // flushed just before its relay let go: rarely still alive
        }
      }
    }
    return new Relayed(deltas, withNoThread, Harness.text(accumulator.message()));
  }

  /** Live threads named {@code levee-stream-N}, virtual ones included (a JDK thread dump lists them). */
  private int streamThreadsAlive() throws Exception {
    Path file = dumps.resolve("threads-" + dumpCount++ + ".txt");
    ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
        .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
    Matcher m = STREAM_THREAD.matcher(Files.readString(file));
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }
}
