package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Issue 15, readiness: {@code /health/live} answers while the process serves; {@code
 * /health/ready} is 200 once started and 503 {@code draining} as soon as a graceful shutdown
 * begins, while requests in flight still finish.
 */
class HealthEndpointsTest {

  @Test
  void readyOnceStartedAndNotReadyWhileDraining() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), "policy: { deadline: 60s, attempt-timeout: 60s }\n",
        "shutdown-grace: 2s");
         HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      URI base = h.gateway.baseUrl(); // read while listening: a closed connector has no port
      assertThat(get(http, base, "/health/live").statusCode()).isEqualTo(200);
      HttpResponse<String> ready = get(http, base, "/health/ready"); // also leaves a kept-alive connection
      assertThat(ready.statusCode()).isEqualTo(200);
      assertThat(ready.body()).isEqualTo("{\"status\":\"ready\"}");
      assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/health/ready"))
          .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
          .isEqualTo(405);

      CompletableFuture<HttpResponse<String>> hanging = http.sendAsync(HttpRequest.newBuilder(
              URI.create(base + "/v1/messages")).header("x-api-key", "k").header("anthropic-version", "2023-06-01")
          .header("content-type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(
              "{\"model\":\"emu-hang\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      h.emulator.awaitLog(log -> log.size() == 1, Duration.ofSeconds(20));
      try (Socket probe = new Socket(base.getHost(), base.getPort())) { // open before the connector closes
        assertThat(ready(probe)).startsWith("HTTP/1.1 200");
        Thread closer = Thread.ofVirtual().start(() -> {
          try {
            h.gateway.close();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });

        String draining = awaitNotReady(probe);
        assertThat(draining).startsWith("HTTP/1.1 503").endsWith("{\"status\":\"draining\"}");
        closer.join();
      }
      assertThat(hanging.get().statusCode()).isEqualTo(503); // ended by the server after the grace
    }
  }

  /** Polls {@code /health/ready} on one kept-alive connection (the drain keeps it open) until it is not 200. */
  private static String awaitNotReady(Socket probe) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    String r = ready(probe);
    while (r.startsWith("HTTP/1.1 200") && System.nanoTime() < until) {
      Thread.onSpinWait();
      r = ready(probe);
    }
    return r;
  }

  /** One {@code GET /health/ready} on {@code probe}: its status line and body. */
  private static String ready(Socket probe) throws Exception {
    probe.getOutputStream().write("GET /health/ready HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        .getBytes(StandardCharsets.US_ASCII));
    probe.getOutputStream().flush();
    InputStream in = probe.getInputStream();
    String status = line(in);
    int length = 0;
    for (String header = line(in); !header.isEmpty(); header = line(in)) {
      if (header.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(header.substring("content-length:".length()).trim());
      }
    }
    return status + " " + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  private static String line(InputStream in) throws Exception {
    StringBuilder line = new StringBuilder();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new java.io.EOFException("connection closed after: " + line);
      }
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }

  private static HttpResponse<String> get(HttpClient http, URI base, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
