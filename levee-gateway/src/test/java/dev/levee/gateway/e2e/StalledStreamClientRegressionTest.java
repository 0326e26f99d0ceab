package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Regression: a client that opened a stream and then stopped reading its socket held the stream,
 * and the upstream call behind it (the upstream generating on, its connection open), until Jetty's
 * connection idle timeout, {@code server.idle-timeout} (300 s by default): one wedged or hostile
 * client could hold thousands of upstream streams for five minutes each. Now a write to a client
 * that stays pending for {@code server.send-timeout} (here 2 s) with no byte of it taken closes the
 * connection: the relay ends and the upstream call is closed, as for a client that disconnects
 * mid-stream. A client that reads slowly but steadily is not cut, even where it reads too little for
 * the operating system to wake the blocked writer within the timeout (a third of a send buffer of up
 * to 4 MiB).
 *
 * <p>Regression, too: such a cut was logged and counted {@code stream_client_gone}, the outcome of a
 * client that disconnected, so an operator could not tell "clients too slow to read our streams"
 * from "users closed the tab". Now its access line and {@code levee_requests_total} say {@code
 * stream_send_timeout}, while a client that disconnects still says {@code stream_client_gone}; both
 * are the client's doing and are settled alike (2xx, no failure of the target, its circuit closed).
 *
 * <p>A write blocks only once the socket buffers between the gateway and its client are full, and on
 * loopback the gateway's send buffer grows to 4 MiB: the upstream is the emulator's {@code
 * emu-stall-2}, two content deltas and then {@code ping}s as fast as they go for as long as its
 * client stays — an answer without end that fills them in a few seconds. The clients' receive
 * buffers are small. The stream idle timeout is a minute, so the gateway's own stall detection
 * (pings are not progress) stays out of the test.
 */
class StalledStreamClientRegressionTest {

  private static final String CONFIG = """
      models:
        endless:
          chain: [emu/emu-stall-2]
      policy:
        deadline: 30s
        attempt-timeout: 20s
        retry: { max-retries: 0 }
        stream: { ttft-timeout: 10s, idle-timeout: 60s }
      """;

  private static final String KEY = "sk-test-client-key";

  private static final String TARGET = "emu/emu-stall-2";

  private static final String TIMED_OUT =
      "levee_requests_total{endpoint=\"messages\",outcome=\"stream_send_timeout\",tier=\"T0\"} 1.0";

  private static final String GONE =
      "levee_requests_total{endpoint=\"messages\",outcome=\"stream_client_gone\",tier=\"T0\"} 1.0";

  /** Far below the 300 s idle timeout that ended such a stream before; far above the 2 s timeout plus filling the buffers. */
  private static final Duration CUT_WITHIN = Duration.ofSeconds(20);

  @Test
  void aClientThatStopsReadingIsCutAndItsUpstreamCallClosed() throws Exception {
    try (AccessLines access = new AccessLines(); Harness h = start();
        StallingClient client = StallingClient.open(h, "endless", KEY, "stops reading")) {
      long stoppedReading = System.nanoTime(); // and never reads again until the end

      Optional<LogEntry> upstream = awaitUpstreamEnded(h, "stops reading", CUT_WITHIN);
      Duration held = Duration.ofNanos(System.nanoTime() - stoppedReading);

      assertThat(upstream).as("the upstream call was still open %s after its client stopped reading", held)
          .hasValueSatisfying(call -> assertThat(call.clientGoneEarly()).as("closed by the gateway").isTrue());
      List<String> lines = access.awaitContaining("model=endless");
      assertThat(lines).as("one access line, a stream the send timeout cut").singleElement().asString()
          .contains("status=200").contains("outcome=stream_send_timeout");
      String rest = client.drain();
      assertThat(rest).as("the connection was closed, the stream never ended as if finished")
          .doesNotContain("message_stop").doesNotEndWith("0\r\n\r\n");
      String metrics = h.awaitMetrics(TIMED_OUT);
      assertThat(metrics).as("counted as cut by the send timeout, not as a client gone").contains(TIMED_OUT)
          .doesNotContain("outcome=\"stream_client_gone\"");
      settledAsTheClientsDoing(h, metrics);
    }
  }

  /** The other half of telling them apart: a client that disconnects mid-stream is still {@code stream_client_gone}. */
  @Test
  void aClientThatDisconnectsMidStreamIsStillGoneNotTimedOut() throws Exception {
    try (AccessLines access = new AccessLines(); Harness h = start();
        StallingClient client = StallingClient.open(h, "endless", KEY, "disconnects")) {
      client.socket().setSoLinger(true, 0); // goes at once, long before the 2 s send timeout could cut it
      client.close();

      Optional<LogEntry> upstream = awaitUpstreamEnded(h, "disconnects", CUT_WITHIN);

      assertThat(upstream).as("the upstream call of a client that left")
          .hasValueSatisfying(call -> assertThat(call.clientGoneEarly()).as("closed by the gateway").isTrue());
      assertThat(access.awaitContaining("model=endless")).singleElement().asString()
          .contains("status=200").contains("outcome=stream_client_gone");
      String metrics = h.awaitMetrics(GONE);
      assertThat(metrics).as("counted as a client gone, not as a send timeout").contains(GONE)
          .doesNotContain("outcome=\"stream_send_timeout\"");
      settledAsTheClientsDoing(h, metrics);
    }
  }

  /**
   * What a stream its client ended comes to, cut or gone alike: the status sent (2xx, never a 5xx
   * for the burn rate), no answer counted, no failed call of the target, its circuit closed.
   */
  private static void settledAsTheClientsDoing(Harness h, String metrics) throws Exception {
    assertThat(metrics).as("the status sent: no server error for the SLO's burn rate")
        .contains("levee_request_duration_seconds_count{alias=\"endless\",endpoint=\"messages\","
            + "feature=\"default\",status_class=\"2xx\",tier=\"T0\"} 1")
        .doesNotContain("status_class=\"5xx\"");
    assertThat(metrics).as("the client got no answer")
        .contains("levee_answers_total{feature=\"default\",source=\"none\"} 1.0");
    assertThat(metrics).as("no failure of the target")
        .doesNotContainPattern("levee_attempts_total\\{outcome=\"(?!success)[a-z_]+\",target=\"" + TARGET
            + "\"\\} [1-9]");
    JsonNode target = Json.tryParse(h.get("/health").body()).path("targets").path(TARGET);
    assertThat(target.path("circuit").asText()).as("%s", target).isEqualTo("CLOSED");
    assertThat(target.path("failed").asLong()).as("%s", target).isZero();
  }

  @Test
  void aClientReadingSlowlyButSteadilyIsNotCutUntilItStops() throws Exception {
    try (AccessLines access = new AccessLines(); Harness h = start();
        StallingClient client = StallingClient.open(h, "endless", KEY, "reads slowly")) {
      InputStream in = client.socket().getInputStream();
      byte[] chunk = new byte[4096];
      long read = 0;
      long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (System.nanoTime() < until) { // 40 KiB/s: the answer comes far faster, so the buffers fill and the writes wait on this reader
        int n = in.read(chunk);
        assertThat(n).as("the stream goes on while its client reads (%d bytes so far)", read).isPositive();
        read += n;
        Thread.sleep(100);
      }

      assertThat(upstreamCall(h, "reads slowly")).as("the upstream call of a client that reads")
          .hasValueSatisfying(call -> assertThat(call.finished()).as("still open").isFalse());
      assertThat(access.lines()).as("no access line yet: the stream goes on")
          .noneMatch(line -> line.contains("model=endless"));

      long stoppedReading = System.nanoTime(); // now it stops: its writes were waiting on it, so the cut comes soon
      Optional<LogEntry> upstream = awaitUpstreamEnded(h, "reads slowly", CUT_WITHIN);
      assertThat(upstream).as("the upstream call was still open %s after its client stopped reading",
          Duration.ofNanos(System.nanoTime() - stoppedReading)).isPresent();
      assertThat(access.awaitContaining("model=endless")).singleElement().asString()
          .contains("outcome=stream_send_timeout");
    }
  }

  /**
   * Regression: a client that never reads but sends an empty line every 300 ms was never cut. The
   * send deadline measured progress on Jetty's idle clock, which every read restarts, and the
   * gateway reads those lines (a server ignores empty lines before a request, RFC 9112 section 2.2)
   * to tell a client gone from one still there: the connection looked busy, to the send timeout and
   * to the idle timeout alike. Now only bytes the socket takes of the answer count.
   */
  @Test
  void aClientThatNeverReadsButSendsEmptyLinesIsCut() throws Exception {
    try (AccessLines access = new AccessLines(); Harness h = start();
        StallingClient client = StallingClient.open(h, "endless", KEY, "empty lines")) {
      long stoppedReading = System.nanoTime(); // reads no more, but keeps the connection busy the other way

      Optional<LogEntry> upstream = Optional.empty();
      long until = stoppedReading + CUT_WITHIN.toNanos();
      OutputStream out = client.socket().getOutputStream();
      boolean sending = true;
      while (upstream.isEmpty() && System.nanoTime() < until) {
        if (sending) {
          try {
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
          } catch (IOException closed) {
            sending = false; // the gateway closed the connection
          }
        }
        Thread.sleep(300);
        upstream = upstreamCall(h, "empty lines").filter(LogEntry::finished);
      }

      assertThat(upstream).as("the upstream call was still open %s after its client stopped reading",
          Duration.ofNanos(System.nanoTime() - stoppedReading))
          .hasValueSatisfying(call -> assertThat(call.clientGoneEarly()).as("closed by the gateway").isTrue());
      assertThat(access.awaitContaining("model=endless")).singleElement().asString()
          .contains("status=200").contains("outcome=stream_send_timeout");
    }
  }

  /** An emulator whose stalled streams ping as fast as they can, and a gateway with a 2 s send timeout (a margin for a loaded CI box). */
  private static Harness start() throws Exception {
    return Harness.start(EmulatorOptions.builder().pingInterval(Duration.ofNanos(1_000)).build(), CONFIG,
        "send-timeout: 2s");
  }

  private static Optional<LogEntry> upstreamCall(Harness h, String prompt) {
    return h.emulator.log().stream().filter(e -> e.body().contains("\"" + prompt + "\"")).findFirst();
  }

  /** The upstream call of {@code prompt} once the emulator has finished it, or empty if it is still open after {@code within}. */
  private static Optional<LogEntry> awaitUpstreamEnded(Harness h, String prompt, Duration within)
      throws InterruptedException {
    long until = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < until) {
      Optional<LogEntry> call = upstreamCall(h, prompt);
      if (call.isPresent() && call.get().finished()) {
        return call;
      }
      Thread.sleep(20);
    }
    return Optional.empty();
  }
}
