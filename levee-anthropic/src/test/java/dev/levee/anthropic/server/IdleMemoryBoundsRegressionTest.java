package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, 10,000 slow streams at {@code -Xmx256m}. Before: the server kept Jetty's defaults for
 * the memory that outlives a burst of connections — up to 200 platform threads (a burst of
 * 10,000 connects started ~140, which then idled for a minute, ~100 KiB of stack each) and an
 * eighth of the maximum heap of released direct buffers (32 MiB, filled by the burst's request
 * buffers and held for good), and each connection's 8 KiB direct request buffer, which Jetty
 * holds while the handler runs — for a stream, its whole life: 80 MiB at 10,000 streams.
 */
class IdleMemoryBoundsRegressionTest {

  @Test
  void platformThreadsAreCappedBySizeOfMachineNotJettysDefault() {
    Server server = server();

    QueuedThreadPool threads = (QueuedThreadPool) server.getThreadPool();
    assertThat(threads.getMaxThreads()).isEqualTo(VirtualThreadServer.platformThreads()).isLessThan(200);
    assertThat(threads.getVirtualThreadsExecutor()).as("handlers still run on virtual threads").isNotNull();
  }

  @Test
  void releasedBuffersOfABurstAreNotAllKept() {
    Server server = server();
    ArrayByteBufferPool pool = (ArrayByteBufferPool) server.getByteBufferPool();

    List<RetainableByteBuffer> burst = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) { // 2,000 connections' 8 KiB request buffers: 16 MiB
      burst.add(pool.acquire(8192, true));
    }
    burst.forEach(RetainableByteBuffer::release);

    assertThat(pool.getAvailableDirectMemory()).isPositive()
        .isLessThanOrEqualTo(VirtualThreadServer.POOLED_BUFFER_BYTES + 8192);
    ByteBuffer again = pool.acquire(8192, true).getByteBuffer();
    assertThat(again.isDirect()).isTrue();
  }

  @Test
  void headersAndBodyLongerThanTheRequestBufferAreReadWhole() throws Exception {
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofSeconds(30), "bounds", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String body = org.eclipse.jetty.io.Content.Source.asString(request, StandardCharsets.UTF_8);
        String answer = request.getHeaders().get("x-long").length() + " " + body.length() + " "
            + body.endsWith("z\"}");
        response.write(true, ByteBuffer.wrap(answer.getBytes(StandardCharsets.UTF_8)), callback);
        return true;
      }
    });
    server.start();
    try (Socket socket = new Socket("127.0.0.1", VirtualThreadServer.port(server))) {
      String longHeader = "h".repeat(3 * VirtualThreadServer.REQUEST_BUFFER_BYTES);
      String body = "{\"x\":\"" + "b".repeat(10 * VirtualThreadServer.REQUEST_BUFFER_BYTES) + "z\"}";
      socket.getOutputStream().write(("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nx-long: " + longHeader
          + "\r\ncontent-length: " + body.length() + "\r\nconnection: close\r\n\r\n" + body)
          .getBytes(StandardCharsets.UTF_8));
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

      assertThat(answer).startsWith("HTTP/1.1 200")
          .endsWith("\r\n\r\n" + longHeader.length() + " " + body.length() + " true");
    } finally {
      server.stop();
    }
  }

  private static Server server() { // created, not started: the limits are set at creation
    return VirtualThreadServer.create("127.0.0.1", 0, Duration.ofSeconds(30), "bounds", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        return false;
      }
    });
  }
}
