package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 13, hostile clients): {@code Transfer-Encoding: gzip, chunked} — or {@code
 * gzip} and {@code chunked} on two header lines — was accepted: Jetty framed the body by its
 * chunks and handed it on as if plain, so the gateway read a gzipped body as JSON and forwarded it
 * with its coding dropped. RFC 9112 section 6.1: a coding the server does not understand gets 501
 * (Not Implemented); it is now refused so, in the API's shape, and the connection closed. The
 * framings RFC 9112 section 6.3 refuses (chunked not last; Transfer-Encoding with Content-Length)
 * stay refused with 400 and a closed connection. Also: an HTTP/1.0 request with {@code
 * Transfer-Encoding: chunked} was framed as chunked and answered 200; RFC 9112 section 6.1 calls
 * its framing faulty (HTTP/1.0 has no transfer codings), so it is now refused with 400 and closed.
 */
class UnknownTransferCodingRegressionTest {

  private static final String CHUNKED_BODY = "b\r\n{\"model\":1}\r\n0\r\n\r\n";

  @Test
  void aCodingBeforeChunkedIsRefusedWith501AndTheConnectionClosed() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT); Socket socket = server.socket()) {
      server.release.countDown();
      String next = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"; // pipelined behind: never read

      String answer = TestServer.exchange(socket, post("Transfer-Encoding: gzip, chunked\r\n") + CHUNKED_BODY + next);

      assertThat(answer).startsWith("HTTP/1.1 501").contains("\"invalid_request_error\"")
          .contains("Transfer-Encoding: gzip, chunked is not supported").containsIgnoringCase("connection: close")
          .containsIgnoringCase("x-should-retry: false");
      assertThat(answer.split("HTTP/1.1 ", -1)).as("one answer, then the connection closed").hasSize(2);
      assertThat(server.entered.availablePermits()).as("the handler never saw the request").isZero();
    }
  }

  @Test
  void aCodingOnItsOwnHeaderLineIsRefusedToo() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT); Socket socket = server.socket()) {
      server.release.countDown();

      String answer = TestServer.exchange(socket,
          post("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n") + CHUNKED_BODY);

      assertThat(answer).startsWith("HTTP/1.1 501").contains("\"invalid_request_error\"");
      assertThat(server.entered.availablePermits()).isZero();
    }
  }

  @Test
  void theControlLaneRefusesItToo() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT); Socket socket = server.socket()) {
      String answer = TestServer.exchange(socket, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "Transfer-Encoding: br, chunked\r\n\r\n0\r\n\r\n");

      assertThat(answer).startsWith("HTTP/1.1 501").contains("\"invalid_request_error\"");
    }
  }

  @Test
  void chunkedAloneStillPasses() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT); Socket socket = server.socket()) {
      server.release.countDown();

      String answer = TestServer.exchange(socket, post("Transfer-Encoding: Chunked\r\nConnection: close\r\n")
          + CHUNKED_BODY);

      assertThat(answer).startsWith("HTTP/1.1 200").contains("{\"ok\":true}");
    }
  }

  @Test
  void chunkedNotLastAndTransferEncodingWithContentLengthStayRefusedWith400() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT);
         Socket notLast = server.socket();
         Socket both = server.socket()) {
      server.release.countDown();

      String notLastAnswer = TestServer.exchange(notLast, post("Transfer-Encoding: chunked, gzip\r\n") + CHUNKED_BODY);
      String bothAnswer = TestServer.exchange(both, post("Content-Length: 3\r\nTransfer-Encoding: chunked\r\n")
          + CHUNKED_BODY + "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");

      assertThat(notLastAnswer).startsWith("HTTP/1.1 400").contains("\"invalid_request_error\"")
          .containsIgnoringCase("connection: close");
      assertThat(bothAnswer).startsWith("HTTP/1.1 400").contains("\"invalid_request_error\"")
          .containsIgnoringCase("connection: close");
      assertThat(bothAnswer.split("HTTP/1.1 ", -1)).as("nothing smuggled behind it is answered").hasSize(2);
      assertThat(server.entered.availablePermits()).isZero();
    }
  }

  @Test
  void anHttp10RequestWithTransferEncodingIsRefusedWith400() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT); Socket socket = server.socket()) {
      server.release.countDown();

      String answer = TestServer.exchange(socket, post("Transfer-Encoding: chunked\r\n")
          .replace("HTTP/1.1", "HTTP/1.0") + CHUNKED_BODY);

      assertThat(answer).startsWith("HTTP/1.1 400").contains("\"invalid_request_error\"").contains("HTTP/1.0");
      assertThat(server.entered.availablePermits()).isZero();
    }
  }

  private static String post(String framing) {
    return "POST /v1/json HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\ncontent-type: application/json\r\n"
        + framing + "\r\n";
  }
}
