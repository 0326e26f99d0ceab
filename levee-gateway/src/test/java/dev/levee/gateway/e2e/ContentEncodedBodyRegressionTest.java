package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12, hostile clients): a body sent with {@code content-encoding: gzip} was
 * refused as "not valid JSON (line 1, column 2)", which names no cause; and a plain JSON body
 * sent with {@code content-encoding: br} was read by Levee as plain JSON but forwarded with that
 * header, so Levee and the upstream read different bodies. Levee does not decode request bodies:
 * any coding but {@code identity} is the client's 400 {@code invalid_request_error} naming the
 * header, and nothing is forwarded.
 */
class ContentEncodedBodyRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY;
  private static final String BODY = "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  @Test
  void aCompressedBodyIsRefusedAtTheDoorNamingTheEncoding() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
      try (GZIPOutputStream gzip = new GZIPOutputStream(gzipped)) {
        gzip.write(BODY.getBytes(StandardCharsets.UTF_8));
      }
      for (String encoding : new String[] {"gzip", "br", "gzip, identity"}) {
        byte[] body = encoding.equals("gzip") ? gzipped.toByteArray() : BODY.getBytes(StandardCharsets.UTF_8);
        String answer = RawHttp.exchange(h, RawHttp.ascii("POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\n"
            + "anthropic-version: 2023-06-01\r\ncontent-type: application/json\r\ncontent-encoding: " + encoding
            + "\r\ncontent-length: " + body.length + "\r\nconnection: close\r\n\r\n"), body);

        assertThat(answer).as(encoding).startsWith("HTTP/1.1 400 ");
        JsonNode error = RawHttp.body(answer).path("error");
        assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.path("message").asText()).contains("content-encoding: " + encoding);
      }
      assertThat(h.emulator.log()).as("nothing forwarded").isEmpty();
    }
  }

  @Test
  void identityIsNoEncoding() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
      String answer = RawHttp.exchange(h, RawHttp.ascii("POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\n"
          + "anthropic-version: 2023-06-01\r\ncontent-type: application/json\r\ncontent-encoding: identity\r\n"
          + "content-length: " + body.length + "\r\nconnection: close\r\n\r\n"), body);

      assertThat(answer).startsWith("HTTP/1.1 200 ");
    }
  }
}
