package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.emulator.EmulatorOptions;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Regression (hostile-client session): a batch is taken up to 256 MB, past {@code server.max-body},
 * when sent with {@code content-length}; the same batch sent chunked got 400 "request body is not
 * valid JSON: it ends before the JSON is complete (line 1, column 33554434)", or a misleading field
 * error when the cut fell elsewhere: the server's door reads a chunked body only up to {@code
 * max-body} + 1 bytes, and the batch handler parsed those bytes as the whole body. A chunked batch
 * over {@code max-body} now gets 413 {@code request_too_large} saying to send it with {@code
 * content-length}; with {@code content-length} it is stored whole, as before.
 */
class ChunkedBatchOverMaxBodyRegressionTest {

  @ParameterizedTest(name = "{0}, idempotency-key {1}")
  @CsvSource({"chunked, false", "chunked, true", "content-length, false", "content-length, true"})
  void aBatchOverMaxBodyIsStoredWholeOrRefusedForWhatItIsNeverParsedCut(String framing, boolean key) throws Exception {
    byte[] body = BatchUploads.batch(3, 600); // ~2 KiB: past the 1 KiB max-body
    try (Harness h = Harness.start(EmulatorOptions.defaults(), BatchUploads.YAML, "max-body: 1KiB")) {
      String answer = RawHttp.exchange(h, request(body, framing.equals("chunked"), key));

      if (framing.equals("chunked")) {
        assertThat(answer).as(answer).startsWith("HTTP/1.1 413");
        JsonNode error = RawHttp.body(answer).path("error");
        assertThat(error.path("type").asText()).isEqualTo("request_too_large");
        assertThat(error.path("message").asText()).contains("chunked").contains("content-length");
        assertThat(h.getWith("/v1/messages/batches", "sk-test-client-key").body()).as("nothing stored")
            .contains("\"data\":[]");
        return;
      }
      assertThat(answer).as(answer).startsWith("HTTP/1.1 200");
      JsonNode created = RawHttp.body(answer);
      assertThat(created.path("type").asText()).isEqualTo("message_batch");
      assertThat(created.path("request_counts").path("processing").asInt()).as(answer).isEqualTo(3);
    }
  }

  /**
   * Review, session 22: with batches' keys fingerprinting bodies up to 256 MB, the door's cut of a
   * chunked batch (its first max-body + 1 bytes) took the key and kept the 413 under it, so the retry
   * the 413 asks for (the same batch with content-length, the same key) heard 422 "already used with
   * a different request body". A cut body takes no key.
   */
  @org.junit.jupiter.api.Test
  void theRetryThe413AsksForIsTakenUnderTheSameKey() throws Exception {
    byte[] body = BatchUploads.batch(3, 600);
    try (Harness h = Harness.start(EmulatorOptions.defaults(), BatchUploads.YAML, "max-body: 1KiB")) {
      String chunked = RawHttp.exchange(h, request(body, true, true));
      String retry = RawHttp.exchange(h, request(body, false, true));

      assertThat(chunked).as(chunked).startsWith("HTTP/1.1 413");
      assertThat(retry).as(retry).startsWith("HTTP/1.1 200").doesNotContainIgnoringCase("idempotent-replayed");
    }
  }

  private static byte[] request(byte[] body, boolean chunked, boolean key) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(RawHttp.ascii("POST /v1/messages/batches HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: sk-test-client-key\r\n"
        + "content-type: application/json\r\nanthropic-version: 2023-06-01\r\nconnection: close\r\n"
        + (key ? "idempotency-key: batch-1\r\n" : "")
        + (chunked ? "transfer-encoding: chunked\r\n\r\n" : "content-length: " + body.length + "\r\n\r\n")));
    if (!chunked) {
      out.writeBytes(body);
      return out.toByteArray();
    }
    for (int at = 0; at < body.length; at += 500) {
      int n = Math.min(500, body.length - at);
      out.writeBytes(RawHttp.ascii(Integer.toHexString(n) + "\r\n"));
      out.write(body, at, n);
      out.writeBytes(RawHttp.ascii("\r\n"));
    }
    out.writeBytes(RawHttp.ascii("0\r\n\r\n"));
    return out.toByteArray();
  }
}
