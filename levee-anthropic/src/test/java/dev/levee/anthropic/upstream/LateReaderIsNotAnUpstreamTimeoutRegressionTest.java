package dev.levee.anthropic.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.time.ManualClock;
import dev.levee.core.time.Scheduler;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (the soak started at full rate on a starved box, levee-bench {@code Soak --ramp 0}):
 * a cold gateway's virtual threads waited 6–9 s for a carrier while the upstream's answers sat in
 * their sockets; the head deadline's timer, on a platform thread of its own, fired meanwhile and
 * closed those calls as timeouts ({@code emu/emu-ok: timeout ... attempt timed out}, every one
 * of 39 with 168–1,441 bytes of the answer unread in its socket), the healthy target's circuit
 * opened, and hundreds of requests failed with {@code circuit open}. An answer in Levee's hands when
 * the deadline passes is Levee's lateness, not the upstream's timeout.
 *
 * <p>Deterministic: the deadline is made to pass at the moment its timer is armed, before the
 * caller's thread has written the request — a thread that has not run yet, as the starved ones had
 * not — by a scheduler that advances the virtual clock past it and runs the check at once.
 */
class LateReaderIsNotAnUpstreamTimeoutRegressionTest {

  private static final String ANSWER = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";

  private final ManualClock clock = new ManualClock();
  private final AtomicBoolean passTheNextDeadlineAtOnce = new AtomicBoolean();
  private final Scheduler lateReader = (delay, task) -> {
    if (passTheNextDeadlineAtOnce.getAndSet(false)) {
      clock.advance(delay.plusMillis(1)); // the reading thread has not run by the time the deadline passes
      task.run();
      return () -> {};
    }
    return clock.schedule(delay, task);
  };
  private final HeadDeadlines deadlines = new HeadDeadlines(clock, lateReader);
  private final PlainHttp1 client = new PlainHttp1(Duration.ofSeconds(2), deadlines);
  private ServerSocket server;

  @AfterEach
  void close() throws IOException {
    client.close();
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aDeadlineThatPassesWhileLeveesThreadHasNotRunIsNotTheUpstreamsTimeout() throws Exception {
    URI uri = serve(true);

    passTheNextDeadlineAtOnce.set(true);
    UpstreamResponse late = send(uri, Duration.ofSeconds(5));

    assertThat(late.status()).isEqualTo(200);
    assertThat(body(late)).isEqualTo("{}");
    assertThat(deadlines.lateReaders()).isEqualTo(1);
  }

  @Test
  void anUpstreamThatHasNotAnsweredWhenTheDeadlinePassesStillTimesOut() throws Exception {
    URI uri = serve(false);

    passTheNextDeadlineAtOnce.set(true);
    AtomicBoolean timedOut = new AtomicBoolean();
    Thread caller = Thread.ofVirtual().start(() -> {
      try {
        send(uri, Duration.ofSeconds(5));
      } catch (HttpTimeoutException e) {
        timedOut.set(true);
      } catch (Exception e) {
        // any other failure leaves timedOut false
      }
    });
    while (caller.getState() != Thread.State.WAITING && caller.isAlive()) {
      Thread.onSpinWait(); // until the caller waits in its read of the head: it waits on the upstream now
    }
    clock.advance(Watchdog.RECHECK);

    assertThat(caller.join(Duration.ofSeconds(10))).as("the deadline ended the call").isTrue();
    assertThat(timedOut).as("a timeout, as before").isTrue();
    assertThat(deadlines.lateReaders()).as("the deadline passed before the request was written").isEqualTo(1);
  }

  /** One connection, whose request is answered at once, or never. */
  private URI serve(boolean answers) throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().start(() -> {
      try (Socket s = server.accept()) {
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
        OutputStream out = s.getOutputStream();
        readRequest(in);
        if (answers) {
          out.write(ANSWER.getBytes(StandardCharsets.ISO_8859_1));
          out.flush();
        }
        in.read(); // until the client goes
      } catch (IOException ignored) {
        // the client went away
      }
    });
    return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/messages");
  }

  private static void readRequest(BufferedReader in) throws IOException {
    int length = 0;
    for (String line; (line = in.readLine()) != null && !line.isEmpty(); ) {
      if (line.toLowerCase().startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    in.skip(length);
  }

  private UpstreamResponse send(URI uri, Duration timeout) throws Exception {
    return client.send(new UpstreamRequest(uri, "POST", Map.of("x-api-key", List.of("k")), "{}".getBytes()),
        timeout, new Cancellation());
  }

  private static String body(UpstreamResponse response) throws IOException {
    try (response) {
      return new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
