package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (hostile-client session): a request declaring a body over {@code server.max-body}
 * gets 413 {@code request_too_large} at once, its body never read; with an {@code idempotency-key}
 * it did not: the key's fingerprint read the body first (up to {@code max-body}, from the network,
 * with no minimum rate: the server's door leaves a body it will not take to the handler), so the
 * client was told {@code 100 Continue} and had to upload it all before its 413, and a client that
 * sent only its head got, at the idle timeout, a 400 reading "could not read the request body:
 * java.util.concurrent.TimeoutException: Idle timeout expired". Such a request now runs without
 * the key (none could be kept for it), as the fingerprint's javadoc said, and hears its 413 at once.
 */
class IdempotencyKeyOverMaxBodyRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"/v1/messages", "/v1/messages/count_tokens"})
  void aDeclaredBodyOverTheLimitIsRefusedAtOnceWithAKeyToo(String path) throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), CONFIG, "max-body: 1KiB");
        Socket socket = new Socket("127.0.0.1", h.gateway.baseUrl().getPort())) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write(("POST " + path + " HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
          + "x-api-key: sk-test-client-key\r\nanthropic-version: 2023-06-01\r\nidempotency-key: big-upload-1\r\n"
          + "expect: 100-continue\r\ncontent-length: 2000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush(); // the head only: a client that waits for 100 Continue before its body

      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      assertThat(answer).as(answer).startsWith("HTTP/1.1 413").contains("\"request_too_large\"")
          .doesNotContain("100 Continue").doesNotContain("Exception");
    }
  }
}
