package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Regression (small items): a client that sent {@code expect: 100-continue} with a request its
 * headers alone condemn — {@code POST /v1/messages} as {@code text/plain} or with no {@code
 * content-type}, a compressed body, no {@code anthropic-version}, a wrong method, a path Levee does
 * not serve — was told {@code 100 Continue}, uploaded its whole body, and only then heard its 400,
 * 404 or 405: the server's door read every body before the dispatcher looked at the headers. RFC
 * 9110 section 10.1.1: a server that will refuse from the headers answers the final status without
 * {@code 100 Continue}. Such a request is now answered before its body is read, with {@code
 * connection: close} (the body it never asked for is not there to be read, and is never parsed as
 * the next request); a request that passes still hears {@code 100 Continue}, and the door's own
 * refusals on the head (429, 529) never sent one.
 */
class ExpectContinueRefusedOnHeadersRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY;
  private static final String BODY = "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  private static final String KEY_AND_VERSION = "x-api-key: sk-test-client-key\r\nanthropic-version: 2023-06-01\r\n";

  @ParameterizedTest(name = "{0} {1} [{2}] -> {3}")
  @CsvSource(delimiter = '|', value = {
      "POST | /v1/messages              | content-type: text/plain                              | 400 | content-type: application/json",
      "POST | /v1/messages              | x-none: no content-type                               | 400 | no content-type header",
      "POST | /v1/messages/count_tokens | content-type: application/x-www-form-urlencoded       | 400 | content-type: application/json",
      "POST | /v1/messages              | content-type: application/json\\r\\ncontent-encoding: gzip | 400 | content-encoding",
      "POST | /v1/messages/batches      | content-type: text/plain                              | 400 | content-type: application/json",
      "PUT  | /v1/messages              | content-type: application/json                        | 405 | is not allowed",
      "POST | /v1/models                | content-type: application/json                        | 405 | is not allowed",
      "POST | /v1/complete              | content-type: application/json                        | 404 | does not serve"})
  void aRequestItsHeadersRefuseIsAnsweredWithoutOneHundredContinue(String method, String path, String header,
      int status, String says) throws Exception {
    try (Harness h = Harness.start(CONFIG); Socket socket = connect(h)) {
      send(socket, method + " " + path + " HTTP/1.1\r\nhost: 127.0.0.1\r\n" + header.replace("\\r\\n", "\r\n") + "\r\n"
          + KEY_AND_VERSION + "expect: 100-continue\r\ncontent-length: " + BODY.length() + "\r\n\r\n");

      String head = RawHttp.head(socket.getInputStream()); // the first answer: the refusal, not 100 Continue
      assertThat(head).as(head).startsWith("HTTP/1.1 " + status).doesNotContain("100 Continue");
      assertThat(head.toLowerCase(Locale.ROOT)).as("the body unread: the connection is not reused").contains("connection: close");
      String rest = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8); // then closed
      assertThat(rest).contains(says).contains("\"request_id\"").doesNotContain("HTTP/1.1");
      assertThat(h.emulator.log()).as("nothing forwarded").isEmpty();
    }
  }

  @Test
  void aRequestWithoutAnthropicVersionIsAnsweredWithoutOneHundredContinue() throws Exception {
    try (Harness h = Harness.start(CONFIG); Socket socket = connect(h)) {
      send(socket, "POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
          + "x-api-key: sk-test-client-key\r\nexpect: 100-continue\r\ncontent-length: " + BODY.length() + "\r\n\r\n");

      String head = RawHttp.head(socket.getInputStream());
      assertThat(head).as(head).startsWith("HTTP/1.1 400");
      assertThat(new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
          .contains("anthropic-version: header is required");
    }
  }

  @Test
  void aRequestThatPassesItsHeadStillHearsOneHundredContinueAndIsServed() throws Exception {
    try (Harness h = Harness.start(CONFIG); Socket socket = connect(h)) {
      send(socket, "POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" + KEY_AND_VERSION
          + "expect: 100-continue\r\ncontent-length: " + BODY.length() + "\r\n\r\n");
      assertThat(RawHttp.head(socket.getInputStream())).startsWith("HTTP/1.1 100");

      send(socket, BODY);
      String head = RawHttp.head(socket.getInputStream());
      assertThat(head).as(head).startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void aRefusedBodySentWithoutExpectIsNotReadAsTheNextRequest() throws Exception {
    try (Harness h = Harness.start(CONFIG); Socket socket = connect(h)) {
      // head and body in one write, as a client that does not wait: the body arrives, unread by the handler
      send(socket, "POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: text/plain\r\n" + KEY_AND_VERSION
          + "content-length: " + BODY.length() + "\r\n\r\n" + BODY);
      String head = RawHttp.head(socket.getInputStream());
      assertThat(head).as(head).startsWith("HTTP/1.1 400");
      socket.getInputStream().readNBytes(RawHttp.contentLength(head));
      // the body had all arrived: Jetty read it past, so the connection is kept and the next request read as sent
      assertThat(head.toLowerCase(Locale.ROOT)).doesNotContain("connection: close");

      send(socket, "GET /health/live HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
      String next = RawHttp.head(socket.getInputStream());
      assertThat(next).as(next).startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void theDoorsConcurrencyRefusalNeverSentOneHundredContinue() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), CONFIG, "max-concurrent: 1, max-concurrent-per-tenant: 1");
        Socket holder = connect(h); Socket second = connect(h)) {
      String request = "POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" + KEY_AND_VERSION
          + "expect: 100-continue\r\ncontent-length: " + BODY.length() + "\r\n\r\n";
      send(holder, request); // admitted; the door waits for its body, holding the one place
      assertThat(RawHttp.head(holder.getInputStream())).startsWith("HTTP/1.1 100");

      send(second, request);
      String head = RawHttp.head(second.getInputStream());
      assertThat(head).as(head).startsWith("HTTP/1.1 529").doesNotContain("100 Continue");
    }
  }

  private static Socket connect(Harness h) throws IOException {
    Socket socket = new Socket("127.0.0.1", h.gateway.baseUrl().getPort());
    socket.setSoTimeout(20_000);
    return socket;
  }

  private static void send(Socket socket, String text) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(text.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }
}
