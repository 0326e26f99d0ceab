package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (session 15, hostile clients): {@code Transfer-Encoding: , chunked}, or an empty
 * {@code Transfer-Encoding} line beside a {@code chunked} one, was refused with 501 as an unknown
 * coding, the empty list element taken for a coding's name; Jetty itself frames such a request by
 * its chunks. RFC 9110 section 5.6.1: a recipient ignores empty list elements. Such a request is
 * now served as {@code Transfer-Encoding: chunked} (and {@code chunked, }, which Jetty trims
 * before the guard sees it, stays served).
 */
class EmptyTransferCodingElementRegressionTest {

  private static final String CHUNKED_BODY = "b\r\n{\"model\":1}\r\n0\r\n\r\n";

  @ParameterizedTest
  @ValueSource(strings = {"Transfer-Encoding: , chunked\r\n", "Transfer-Encoding: chunked, \r\n",
      "Transfer-Encoding: chunked,,\r\n", "Transfer-Encoding: ,,chunked\r\n",
      "Transfer-Encoding: \r\nTransfer-Encoding: chunked\r\n"})
  void emptyElementsAreIgnoredAndTheBodyIsReadByItsChunks(String header) throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT); Socket socket = server.socket()) {
      server.release.countDown();

      String answer = TestServer.exchange(socket, "POST /v1/json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "Content-Type: application/json\r\n" + header + "Connection: close\r\n\r\n" + CHUNKED_BODY);

      assertThat(answer).startsWith("HTTP/1.1 200").contains("{\"ok\":true}");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"Transfer-Encoding: , gzip, chunked\r\n", "Transfer-Encoding: \r\nTransfer-Encoding: gzip, chunked\r\n"})
  void aRealCodingBesideEmptyElementsIsStillRefusedWith501(String header) throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT); Socket socket = server.socket()) {
      server.release.countDown();

      String answer = TestServer.exchange(socket, "POST /v1/json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "Content-Type: application/json\r\n" + header + "\r\n" + CHUNKED_BODY);

      assertThat(answer).startsWith("HTTP/1.1 501").contains("\"invalid_request_error\"");
      assertThat(server.entered.availablePermits()).as("the handler never saw the request").isZero();
    }
  }
}
