package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 15, hostile clients): a connection that sent nothing was answered 408 by the
 * header deadline — an answer to no request, which a client sending one later on that connection
 * could take for its own — and nothing counted it. Now a silent connection is closed without a
 * word, at the idle timeout or the header deadline, and counted ({@link
 * VirtualThreadServer#silentConnectionsClosed}); one that sent part of a request head is closed as
 * quietly at the idle timeout but not counted as silent, nor is one the client closed itself.
 * Here the idle timeout (1 s) comes long before the header deadline (an hour).
 */
class SilentConnectionClosedRegressionTest {

  private final List<Integer> refusals = new CopyOnWriteArrayList<>();
  private final BlockingQueue<Connection> opened = new LinkedBlockingQueue<>();
  private final BlockingQueue<Connection> closed = new LinkedBlockingQueue<>();
  private Server server;

  @BeforeEach
  void start() throws Exception {
    server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofSeconds(1), "quiet", new Handler.Abstract() {
      @Override
      public boolean handle(org.eclipse.jetty.server.Request request, org.eclipse.jetty.server.Response response,
          org.eclipse.jetty.util.Callback callback) {
        callback.succeeded();
        return true;
      }
    }, ServerLimits.DEFAULT.withTimeouts(Duration.ofHours(1), 1_000),
        new RequestGuard.Lanes(path -> false, null, headers -> "id",
            (method, path, began, id, error) -> refusals.add(error.status())));
    server.getConnectors()[0].addEventListener(new Connection.Listener() {
      @Override
      public void onOpened(Connection connection) {
        opened.add(connection);
      }

      @Override
      public void onClosed(Connection connection) {
        closed.add(connection);
      }
    });
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.stop();
  }

  @Test
  void aSilentConnectionIsClosedAtTheIdleTimeoutWithoutAnAnswerAndCounted() throws Exception {
    try (Socket silent = socket()) {
      assertThat(read(silent)).as("closed without an answer").isEmpty();
    }
    assertThat(VirtualThreadServer.silentConnectionsClosed(server)).isEqualTo(1);
    assertThat(refusals).as("no request, so no refusal").isEmpty();
  }

  @Test
  void aPartialHeadIsClosedAtTheIdleTimeoutWithoutAnAnswerAndNotCountedAsSilent() throws Exception {
    try (Socket partial = socket()) {
      partial.getOutputStream().write("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
      HttpConnection connection = (HttpConnection) opened.poll(20, TimeUnit.SECONDS);
      assertThat(connection).isNotNull();
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (connection.getBytesIn() == 0 && connection.getEndPoint().isOpen() && System.nanoTime() < until) {
        Thread.onSpinWait(); // until the server has read the partial head: before, the connection is still silent
      }
      assertThat(connection.getBytesIn()).as("the server read the partial head").isPositive();

      assertThat(read(partial)).as("no 408 to a request never finished").isEmpty();
    }
    assertThat(VirtualThreadServer.silentConnectionsClosed(server)).as("it sent bytes: not silent").isZero();
  }

  @Test
  void aSilentConnectionTheClientClosesIsNotCounted() throws Exception {
    Connection connection;
    try (Socket socket = socket()) {
      connection = opened.poll(20, TimeUnit.SECONDS);
      assertThat(connection).isNotNull();
    }
    assertThat(closed.poll(20, TimeUnit.SECONDS)).as("the server saw it end").isSameAs(connection);
    assertThat(VirtualThreadServer.silentConnectionsClosed(server)).isZero();
  }

  private Socket socket() throws Exception {
    Socket socket = new Socket("127.0.0.1", VirtualThreadServer.port(server));
    socket.setSoTimeout(20_000);
    return socket;
  }

  private static String read(Socket socket) throws Exception {
    return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
  }
}
