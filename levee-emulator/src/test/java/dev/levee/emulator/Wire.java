package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Wire-level access to an emulator for tests: request bodies, raw HTTP, SSE, sockets. */
final class Wire {

  static final HttpClient HTTP_CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private final Emulator emulator;

  Wire(Emulator emulator) {
    this.emulator = emulator;
  }

  /** A Messages body: {@code max_tokens} 1024, one user message per text (alternating roles from user). */
  static ObjectNode body(String model, boolean stream, String... turns) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("model", model);
    body.put("max_tokens", 1024);
    if (stream) {
      body.put("stream", true);
    }
    ArrayNode messages = body.putArray("messages");
    for (int i = 0; i < turns.length; i++) {
      ObjectNode message = messages.addObject();
      message.put("role", i % 2 == 0 ? "user" : "assistant");
      message.put("content", turns[i]);
    }
    return body;
  }

  HttpResponse<String> post(String path, Object body) throws IOException, InterruptedException {
    return HTTP_CLIENT.send(request(path, body).build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP_CLIENT.send(HttpRequest.newBuilder(URI.create(emulator.baseUrl() + path)).header("x-api-key", "test")
        .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpRequest.Builder request(String path, Object body) {
    byte[] bytes = body instanceof byte[] raw ? raw // sent as it is, whatever its bytes
        : body instanceof String text ? text.getBytes(StandardCharsets.UTF_8) : Json.bytes(body);
    return HttpRequest.newBuilder(URI.create(emulator.baseUrl() + path))
        .header("x-api-key", "test")
        .header("anthropic-version", "2023-06-01")
        .header("content-type", "application/json")
        .timeout(Duration.ofSeconds(10))
        .POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
  }

  /** The JSON response body of a successful {@code POST /v1/messages}. */
  JsonNode message(Object body) throws IOException, InterruptedException {
    HttpResponse<String> response = post("/v1/messages", body);
    if (response.statusCode() != 200) {
      throw new AssertionError("expected 200, got " + response.statusCode() + ": " + response.body());
    }
    return Json.tryParse(response.body());
  }

  /** Every event of a streamed response that ends cleanly. */
  List<SseEvent> events(Object body) throws IOException, InterruptedException {
    HttpResponse<InputStream> response = HTTP_CLIENT.send(request("/v1/messages", body).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    if (response.statusCode() != 200) {
      throw new AssertionError("expected 200, got " + response.statusCode() + ": "
          + new String(response.body().readAllBytes(), StandardCharsets.UTF_8));
    }
    List<SseEvent> events = new ArrayList<>();
    try (SseReader reader = new SseReader(response.body())) {
      SseEvent event;
      while ((event = reader.next()) != null) {
        events.add(event);
      }
    }
    return events;
  }

  /** The text of all text deltas of a stream, joined. */
  static String streamedText(List<SseEvent> events) {
    StringBuilder text = new StringBuilder();
    for (SseEvent event : events) {
      JsonNode data = Json.tryParse(event.data());
      if (event.event().equals("content_block_delta") && data.path("delta").path("type").asText().equals("text_delta")) {
        text.append(data.path("delta").path("text").asText());
      }
    }
    return text.toString();
  }

  /** The text of all text blocks of a JSON message, joined. */
  static String text(JsonNode message) {
    StringBuilder text = new StringBuilder();
    for (JsonNode block : message.path("content")) {
      if (block.path("type").asText().equals("text")) {
        text.append(block.path("text").asText());
      }
    }
    return text.toString();
  }

  /**
   * What a plain socket received for one request.
   *
   * @param text every byte received, as text (headers and raw chunked body)
   * @param complete whether the response ended with HTTP/1.1's terminating chunk
   */
  record Raw(String text, boolean complete) {
    /** The response body: chunk framing left in, headers removed. */
    String body() {
      int end = text.indexOf("\r\n\r\n");
      return end < 0 ? "" : text.substring(end + 4);
    }
  }

  /**
   * Sends {@code POST /v1/messages} over a plain socket (kept alive, so a streamed body is
   * chunked) and returns what arrived until the terminating chunk or until the server closed.
   */
  Raw rawExchange(Object body) throws IOException {
    byte[] bytes = Json.bytes(body);
    try (Socket socket = new Socket("127.0.0.1", emulator.port())) {
      socket.setSoTimeout(10_000);
      String head = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: test\r\n"
          + "content-type: application/json\r\ncontent-length: " + bytes.length + "\r\n\r\n";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().write(bytes);
      socket.getOutputStream().flush();
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[8192];
      int n;
      while ((n = in.read(buffer)) >= 0) {
        received.write(buffer, 0, n);
        if (received.toString(StandardCharsets.UTF_8).endsWith("\r\n0\r\n\r\n")) {
          return new Raw(received.toString(StandardCharsets.UTF_8), true);
        }
      }
      return new Raw(received.toString(StandardCharsets.UTF_8), false);
    }
  }

  /** Asserts the emulator's 400 {@code invalid_request_error} in the API's shape, saying {@code message}. */
  static void assertInvalidRequest(HttpResponse<String> answer, String message) {
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
    JsonNode error = Json.tryParse(answer.body());
    assertThat(error.path("type").asText()).isEqualTo("error");
    assertThat(error.at("/error/type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.at("/error/message").asText()).isEqualTo(message);
    assertThat(error.path("request_id").asText()).startsWith("req_");
  }
}
