package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Given Levee's server on its default connector ({@link VirtualThreadConnector}), when clients
 * talk to it over loopback, then a kept-alive connection is served by one virtual thread, a body
 * longer than one blocking read arrives whole, and a client that leaves while the handler waits
 * is noticed by a {@link DisconnectWatch}.
 */
class VirtualThreadConnectorTest {

  private final List<Thread> handlerThreads = new CopyOnWriteArrayList<>();
  private final CountDownLatch watching = new CountDownLatch(1);
  private final CountDownLatch gone = new CountDownLatch(1);
  private Server server;

  @BeforeEach
  void start() throws Exception {
    server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofMinutes(1), "vt-test", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        handlerThreads.add(Thread.currentThread());
        ByteBuffer body = Content.Source.asByteBuffer(request);
        if (Request.getPathInContext(request).equals("/wait")) {
          try (DisconnectWatch watch = DisconnectWatch.start(request, gone::countDown)) {
            watching.countDown();
            gone.await(20, TimeUnit.SECONDS);
          }
          callback.failed(new ClientGoneException());
          return true;
        }
        ServerIo.json(response, callback, 200, ("{\"bytes\":" + body.remaining() + "}").getBytes(StandardCharsets.UTF_8));
        return true;
      }
    });
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.stop();
  }

  @Test
  void theServerRunsOnTheVirtualThreadConnectorByDefault() {
    assertThat(server.getConnectors()).singleElement().isInstanceOf(VirtualThreadConnector.class);
  }

  @Test
  void aKeptAliveConnectionIsServedByOneVirtualThreadRequestAfterRequest() throws Exception {
    try (Socket socket = socket()) {
      for (int i = 0; i < 5; i++) {
        assertThat(exchange(socket, post("/echo", "{\"n\":" + i + "}"))).startsWith("HTTP/1.1 200").endsWith("{\"bytes\":7}");
      }
    }

    assertThat(handlerThreads).hasSize(5).allMatch(Thread::isVirtual);
    assertThat(handlerThreads.stream().distinct()).as("no new thread per request").hasSize(1);
  }

  @Test
  void aBodyLongerThanOneBlockingReadArrivesWhole() throws Exception {
    String body = "{\"text\":\"" + "x".repeat(200_000) + "\"}";
    try (Socket socket = socket()) {
      assertThat(exchange(socket, post("/echo", body))).startsWith("HTTP/1.1 200")
          .endsWith("{\"bytes\":" + body.length() + "}");
      assertThat(exchange(socket, post("/echo", "{}"))).as("the next request on the same connection")
          .endsWith("{\"bytes\":2}");
    }
  }

  @Test
  void aClientThatLeavesWhileTheHandlerWaitsIsNoticed() throws Exception {
    Socket socket = socket();
    socket.getOutputStream().write(post("/wait", "{}").getBytes(StandardCharsets.ISO_8859_1));
    assertThat(watching.await(10, TimeUnit.SECONDS)).isTrue();

    socket.close();

    assertThat(gone.await(10, TimeUnit.SECONDS)).as("the watch heard the client leave").isTrue();
  }

  private Socket socket() throws Exception {
    Socket socket = new Socket("127.0.0.1", VirtualThreadServer.port(server));
    socket.setSoTimeout(10_000);
    return socket;
  }

  private static String post(String path, String body) {
    return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: "
        + body.length() + "\r\n\r\n" + body;
  }

  /** Sends {@code raw} and reads one answer (head and a content-length body). */
  private static String exchange(Socket socket, String raw) throws Exception {
    OutputStream out = socket.getOutputStream();
    out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
    InputStream in = socket.getInputStream();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        return head.toString();
      }
      head.append((char) b);
    }
    java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
    byte[] body = in.readNBytes(length.find() ? Integer.parseInt(length.group(1)) : 0);
    return head + new String(body, StandardCharsets.UTF_8);
  }
}
