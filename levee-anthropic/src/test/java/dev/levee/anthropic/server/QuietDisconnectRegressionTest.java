package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.QuietException;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * Issue 9 item 6: every client that left before its answer logged a WARN with ~15 stack lines.
 * The handler ends such an exchange by failing its callback (after its own one-line access log);
 * Jetty then logs the failure as a WARN with the stack unless it is a {@link QuietException}.
 * The server now hands every handler failure to Jetty as quiet.
 */
class QuietDisconnectRegressionTest {

  @Test
  void aClientThatLeavesBeforeItsAnswerReachesJettyAsAQuietFailure() throws Exception {
    CountDownLatch clientLeft = new CountDownLatch(1);
    CompletableFuture<Throwable> seenByJetty = new CompletableFuture<>();
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofMinutes(1), "quiet", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Content.Source.asByteBuffer(request);
        DisconnectWatch.start(request, clientLeft::countDown);
        clientLeft.await(20, TimeUnit.SECONDS);
        callback.failed(new java.util.concurrent.CancellationException("client went away"));
        return true;
      }
    }, ServerLimits.DEFAULT, RequestGuard.Lanes.NONE);
    server.setErrorHandler(new ErrorHandler() {
      @Override
      protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
          Callback callback) {
        seenByJetty.complete(cause);
        callback.succeeded();
      }
    });
    server.start();
    try {
      try (Socket socket = new Socket("127.0.0.1", VirtualThreadServer.port(server))) {
        socket.getOutputStream().write(("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-length: 2\r\n\r\n{}")
            .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
      }

      assertThat(seenByJetty.get(20, TimeUnit.SECONDS)).isInstanceOf(QuietException.class)
          .hasRootCauseInstanceOf(java.util.concurrent.CancellationException.class);
    } finally {
      server.stop();
    }
  }
}
