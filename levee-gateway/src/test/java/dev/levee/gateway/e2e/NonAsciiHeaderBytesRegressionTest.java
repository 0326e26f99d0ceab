package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.LogEntry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Regression (hostile-client session): a header value with bytes outside ASCII (RFC 9110's
 * obs-text, which a proxy passes on as opaque data) reached an {@code http:} upstream changed:
 * Jetty reads each such byte as one character, and the upstream client wrote the head back as
 * UTF-8, so UTF-8 {@code é} ({@code C3 A9}) left as {@code C3 83 C2 A9} and a Latin-1 {@code é}
 * ({@code E9}) as {@code C3 A9}, breaking DESIGN.md promise 1 (what the client sends reaches the
 * upstream unchanged). The answer's headers already came back byte for byte. The emulator, a
 * Jetty like the gateway, must read the very string the client's bytes make.
 */
class NonAsciiHeaderBytesRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\n" + Harness.BASE_POLICY;

  @Test
  void headerBytesOutsideAsciiReachTheUpstreamAsTheClientSentThem() throws Exception {
    byte[] utf8 = "beta-café-日本".getBytes(StandardCharsets.UTF_8);
    byte[] latin1 = {'o', 'l', 'd', '-', (byte) 0xe9, (byte) 0xff};
    try (Harness h = Harness.start(CONFIG)) {
      for (byte[] value : new byte[][] {utf8, latin1}) {
        String answer = RawHttp.exchange(h, request(value));
        assertThat(answer).as(answer).startsWith("HTTP/1.1 200");

        LogEntry seen = h.emulator.log().getLast();
        assertThat(seen.anthropicBeta()).isEqualTo(new String(value, StandardCharsets.ISO_8859_1));
      }
    }
  }

  private static byte[] request(byte[] betaValue) {
    String body = "{\"model\":\"chat\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(RawHttp.ascii("POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: sk-ant-test\r\n"
        + "content-type: application/json\r\nanthropic-version: 2023-06-01\r\nconnection: close\r\nanthropic-beta: "));
    out.writeBytes(betaValue);
    out.writeBytes(RawHttp.ascii("\r\ncontent-length: " + body.length() + "\r\n\r\n" + body));
    return out.toByteArray();
  }
}
