package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12): the age of a connection that sent nothing was read off the wall clock
 * (Jetty's accept time stamp against {@code System.currentTimeMillis()}), so a step of the clock
 * could cut a fresh connection as silent or spare a silent one. It is counted on the deadline's
 * monotonic clock, here a fake one the test moves: the wall clock's few milliseconds do not count.
 */
class SilentAgeOnTheMonotonicClockRegressionTest {

  @Test
  void aSilentConnectionIsCutWhenTheMonotonicClockSaysSoAndNotBefore() throws Exception {
    List<Integer> refusals = new CopyOnWriteArrayList<>();
    RequestGuard.Lanes lanes = new RequestGuard.Lanes(path -> false, null, headers -> "id",
        (method, path, began, id, error) -> refusals.add(error.status()));
    // the server's own deadline waits an hour; the test sweeps with its own, on its own clock
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofMinutes(5), "silent", new Handler.Abstract() {
      @Override
      public boolean handle(org.eclipse.jetty.server.Request request, org.eclipse.jetty.server.Response response,
          org.eclipse.jetty.util.Callback callback) {
        callback.succeeded();
        return true;
      }
    }, ServerLimits.DEFAULT.withTimeouts(Duration.ofHours(1), 1_000), RequestGuard.Lanes.NONE);
    CompletableFuture<Connection> opened = new CompletableFuture<>();
    server.getConnectors()[0].addEventListener(new Connection.Listener() {
      @Override
      public void onOpened(Connection connection) {
        opened.complete(connection);
      }
    });
    AtomicLong nanos = new AtomicLong(1_000);
    AtomicLong silentClosed = new AtomicLong();
    ConnectionSweeper sweeper = new ConnectionSweeper("silent-sweeper", server.getConnectors()[0], nanos::get,
        Duration.ofMillis(250), new HeaderDeadline(Duration.ofSeconds(1), lanes, silentClosed::incrementAndGet));
    server.start();
    try (Socket socket = new Socket("127.0.0.1", VirtualThreadServer.port(server))) {
      socket.setSoTimeout(20_000);
      opened.get(20, TimeUnit.SECONDS);

      sweeper.sweep(); // first seen
      nanos.addAndGet(HeaderDeadline.SILENT_FLOOR.toNanos() - 1); // silent, but not for long enough yet
      sweeper.sweep();
      sweeper.sweep();
      assertThat(silentClosed).as("not silent long enough on the monotonic clock").hasValue(0);

      nanos.addAndGet(2); // past the floor
      sweeper.sweep(); // seen silent
      sweeper.sweep(); // still silent: cut
      sweeper.sweep(); // closing, or closed: never counted twice
      assertThat(silentClosed).hasValue(1);
      assertThat(new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII))
          .as("closed without an answer: no request was sent").isEmpty();
      assertThat(refusals).as("no request, so no refusal to hear of").isEmpty();
    } finally {
      server.stop();
    }
  }
}
