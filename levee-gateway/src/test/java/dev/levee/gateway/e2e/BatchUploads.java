package dev.levee.gateway.e2e;

import java.nio.charset.StandardCharsets;

/** A gateway that takes Message Batches, and batch bodies of a chosen size (the upload regression tests). */
final class BatchUploads {

  /** One alias on the emulator, and a queue with a secret, so batches carrying a client key are taken. */
  static final String YAML = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY + """
      queue:
        folder: ${QUEUE}
        secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
      """;

  private BatchUploads() {}

  /**
   * The head of a batch upload declaring {@code declared} body bytes, and the body's first 13
   * ({@code {"requests":[}): a client that then sends no more, or leaves.
   */
  static byte[] startedUpload(int declared) {
    return ("POST /v1/messages/batches HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        + "x-api-key: sk-test-client-key\r\nanthropic-version: 2023-06-01\r\ncontent-length: " + declared + "\r\n\r\n"
        + "{\"requests\":[").getBytes(StandardCharsets.US_ASCII);
  }

  /** A valid batch body of {@code requests} requests for {@code chat}, each message {@code padding} characters long. */
  static byte[] batch(int requests, int padding) {
    StringBuilder batch = new StringBuilder("{\"requests\":[");
    for (int i = 0; i < requests; i++) {
      batch.append(i == 0 ? "" : ",").append("{\"custom_id\":\"r").append(i).append("\",\"params\":{\"model\":\"chat\",")
          .append("\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"").append("x".repeat(padding))
          .append("\"}]}}");
    }
    return batch.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }
}
