package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.emulator.EmulatorOptions;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Regression (session 27, hostile clients): a Message Batch was parsed whole, body, tree and each
 * request's params at once (~4 bytes of heap a byte of body; now 2), and nothing bounded it but the API's
 * 256 MB: two 250 MB batches at once made one fail with {@code OutOfMemoryError} under {@code
 * -Xmx1g} (its 500 quoting the error), and what else allocated then failed with it. A batch now
 * holds what its parse takes against {@code server.max-body-memory} first; one that could never fit
 * a tenant's half is 413 {@code request_too_large}, refused before its body is read.
 */
class BatchBodyMemoryRegressionTest {

  /** Bodies of 4 KiB at the door, 64 KiB held at once: a tenant's 32 KiB parses a batch of 16 KiB at most (2 bytes a byte). */
  private static final String SERVER = "max-body: 4KiB, max-body-memory: 64KiB";

  @ParameterizedTest(name = "{0} bytes of batch, idempotency-key {1}")
  @CsvSource({"20000, false", "20000, true", "12000, false", "3000, false"})
  void aBatchIsParsedOnlyWhenWhatItsParseTakesFitsATenantsHalf(int size, boolean key) throws Exception {
    byte[] body = BatchUploads.batch(3, size / 3 - 100);
    try (Harness h = Harness.start(EmulatorOptions.defaults(), BatchUploads.YAML, SERVER)) {
      String answer = RawHttp.exchange(h, request(body, key));

      if (body.length * 2L > 32 * 1024) {
        assertThat(answer).as(answer).startsWith("HTTP/1.1 413");
        JsonNode error = RawHttp.body(answer).path("error");
        assertThat(error.path("type").asText()).isEqualTo("request_too_large");
        assertThat(error.path("message").asText()).contains(String.valueOf(body.length * 2L)).contains("max-body-memory");
        assertThat(h.getWith("/v1/messages/batches", "sk-test-client-key").body()).as("nothing stored")
            .contains("\"data\":[]");
        return;
      }
      assertThat(answer).as(answer).startsWith("HTTP/1.1 200");
      assertThat(RawHttp.body(answer).path("request_counts").path("processing").asInt()).isEqualTo(3);
    }
  }

  /**
   * Review (session 27): the batch's hold counted 2 bytes a byte of body, but a request's tree takes
   * ~100 bytes of heap for the 3 bytes of a {@code {}}: a 12 MB batch of them ran a 256 MiB heap
   * out within the hold. The hold now counts the largest request's tokens too.
   */
  @org.junit.jupiter.api.Test
  void aRequestOfManySmallValuesHoldsWhatItsTreeTakes() throws Exception {
    String empties = "{},".repeat(1000) + "{}"; // 3,002 bytes, 2,002 tokens: ~128 KB of tree, 6 KB at 2 a byte
    byte[] body = ("{\"requests\":[{\"custom_id\":\"r0\",\"params\":{\"model\":\"chat\",\"max_tokens\":10,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"x\":[" + empties + "]}}}]}")
        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (Harness h = Harness.start(EmulatorOptions.defaults(), BatchUploads.YAML, SERVER)) {
      String answer = RawHttp.exchange(h, request(body, false));

      assertThat(answer).as(answer).startsWith("HTTP/1.1 413");
      assertThat(RawHttp.body(answer).path("error").path("message").asText()).contains("max-body-memory");
      assertThat(h.awaitMetrics("levee_request_body_bytes 0.0")).as("given back once refused")
          .contains("levee_request_body_bytes 0.0");
    }
  }

  /**
   * Review (session 27): a batch refused 529 at its parse, the server's bodies full, was logged and
   * counted as the gateway's error ({@code outcome=error overloaded_error}, no reason), while the same
   * refusal at the door is {@code refused … refusal=server_body_memory_limit}.
   */
  @org.junit.jupiter.api.Test
  void aBatchRefusedForTheServersMemoryIsCountedAsRefused() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), BatchUploads.YAML, "max-body: 16KiB, max-body-memory: 64KiB");
         AccessLines access = new AccessLines();
         java.net.Socket a = holder(h, "a");
         java.net.Socket b = holder(h, "b");
         java.net.Socket c = holder(h, "c")) {
      assertThat(h.awaitMetrics("levee_request_body_bytes 49152.0")).contains("levee_request_body_bytes 49152.0");
      byte[] body = BatchUploads.batch(4, 2000 - 100); // ~8 KiB: 56 KiB held once read, its parse ~18 KiB more

      String answer = RawHttp.exchange(h, request(body, false));

      assertThat(answer).as(answer).startsWith("HTTP/1.1 529").containsIgnoringCase("retry-after: 1");
      assertThat(access.awaitContaining(" POST /v1/messages/batches status=529")).anySatisfy(line -> assertThat(line)
          .contains("outcome=refused overloaded_error").contains("refusal=server_body_memory_limit"));
    }
  }

  /** A client of its own key that sent 16,000 bytes of a 16 KiB body and waits: 16 KiB held. */
  private static java.net.Socket holder(Harness h, String key) throws java.io.IOException {
    java.net.Socket socket = new java.net.Socket("127.0.0.1", h.gateway.baseUrl().getPort());
    socket.getOutputStream().write(RawHttp.ascii("POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: sk-holder-" + key
        + "\r\ncontent-type: application/json\r\nanthropic-version: 2023-06-01\r\ncontent-length: 16384\r\n\r\n"
        + "x".repeat(16_000)));
    socket.getOutputStream().flush();
    return socket;
  }

  private static byte[] request(byte[] body, boolean key) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(RawHttp.ascii("POST /v1/messages/batches HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: sk-test-client-key\r\n"
        + "content-type: application/json\r\nanthropic-version: 2023-06-01\r\nconnection: close\r\n"
        + (key ? "idempotency-key: batch-1\r\n" : "") + "content-length: " + body.length + "\r\n\r\n"));
    out.writeBytes(body);
    return out.toByteArray();
  }
}
