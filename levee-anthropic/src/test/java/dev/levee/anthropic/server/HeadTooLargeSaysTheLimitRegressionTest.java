package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): Jetty's refusals of a request line too long (414) and of headers too
 * large (431) were Anthropic-shaped but said only {@code URI Too Long} and {@code Request Header
 * Fields Too Large}, so a client could not tell by how much to shorten them. Each now states the
 * limit, from the server's configuration (8 KiB, 8,192 bytes, for the request line and headers
 * together).
 */
class HeadTooLargeSaysTheLimitRegressionTest {

  @Test
  void aRequestLineTooLongIsToldTheLimit() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT); Socket socket = server.socket()) {
      String answer = TestServer.exchange(socket,
          "GET /v1/json?q=" + "x".repeat(10_000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\n\r\n");

      assertThat(answer).startsWith("HTTP/1.1 414 ");
      JsonNode error = body(answer).path("error");
      assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
      assertThat(error.path("message").asText()).isEqualTo(
          "The request line is too long: the request line and headers must fit in 8 KiB (8,192 bytes).");
    }
  }

  @Test
  void headersTooLargeAreToldTheLimit() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT); Socket socket = server.socket()) {
      String answer = TestServer.exchange(socket, "POST /v1/json HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\n"
          + "x-long: " + "x".repeat(10_000) + "\r\ncontent-length: 2\r\n\r\n{}");

      assertThat(answer).startsWith("HTTP/1.1 431 ");
      JsonNode error = body(answer).path("error");
      assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
      assertThat(error.path("message").asText()).isEqualTo(
          "The request headers are too large: the request line and headers must fit in 8 KiB (8,192 bytes).");
    }
  }

  private static JsonNode body(String answer) {
    JsonNode body = Json.tryParse(answer.substring(answer.indexOf("\r\n\r\n") + 4));
    assertThat(body).as(answer).isNotNull();
    assertThat(body.path("type").asText()).isEqualTo("error");
    return body;
  }
}
