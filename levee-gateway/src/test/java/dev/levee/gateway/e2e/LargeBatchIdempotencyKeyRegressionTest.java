package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.emulator.EmulatorOptions;
import org.junit.jupiter.api.Test;

/**
 * Regression (review, session 22): a batch over {@code server.max-body} (taken up to 256 MB with
 * {@code content-length}) ran without its {@code idempotency-key}: the key's fingerprint read
 * bodies only up to {@code max-body}, and a larger one went on as if it had no key, so a client's
 * retry of a large batch — what the key is for — stored a second batch that ran every request
 * again. The key now holds for any batch the handler takes: the retry gets the first answer again
 * ({@code idempotent-replayed: true}, the same batch id) and one batch is stored.
 */
class LargeBatchIdempotencyKeyRegressionTest {

  @Test
  void aRetriedBatchOverMaxBodyIsStoredOnceAndAnsweredAgain() throws Exception {
    byte[] body = BatchUploads.batch(3, 600); // ~2 KiB: past the 1 KiB max-body
    try (Harness h = Harness.start(EmulatorOptions.defaults(), BatchUploads.YAML, "max-body: 1KiB")) {
      String first = RawHttp.exchange(h, request(body));
      String retry = RawHttp.exchange(h, request(body));

      assertThat(first).as(first).startsWith("HTTP/1.1 200");
      assertThat(retry).as(retry).startsWith("HTTP/1.1 200").containsIgnoringCase("idempotent-replayed: true");
      String id = RawHttp.body(first).path("id").asText();
      assertThat(RawHttp.body(retry).path("id").asText()).isEqualTo(id);
      JsonNode stored = dev.levee.anthropic.Json.MAPPER.readTree(h.getWith("/v1/messages/batches", "sk-test-client-key").body()).path("data");
      assertThat(stored).as("batches stored").hasSize(1);
    }
  }

  private static byte[] request(byte[] body) {
    byte[] head = RawHttp.ascii("POST /v1/messages/batches HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: sk-test-client-key\r\n"
        + "content-type: application/json\r\nanthropic-version: 2023-06-01\r\nconnection: close\r\n"
        + "idempotency-key: large-batch-1\r\ncontent-length: " + body.length + "\r\n\r\n");
    byte[] out = new byte[head.length + body.length];
    System.arraycopy(head, 0, out, 0, head.length);
    System.arraycopy(body, 0, out, head.length, body.length);
    return out;
  }
}
