package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.levee.anthropic.sse.SseReader;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A hostile-input trial: an upstream that, after the first text delta, sends one event without end
 * (a {@code data:} line that never stops) made the gateway hold ever more of it, until the heap ran
 * out for every stream. Now the reader refuses an event past {@link SseReader#MAX_EVENT_BYTES}: a
 * malformed stream, as an event whose data is not JSON; the gateway closes the upstream connection
 * and, with {@code resume: off}, the client gets Levee's {@code event: error} after the text it had
 * — never a {@code message_stop}.
 */
class EndlessUpstreamEventRegressionTest {

  private static final Map<String, String> HEADERS = Map.of("content-type", "application/json",
      "x-api-key", "sk-test-client-key", "anthropic-version", "2023-06-01");

  /** The upstream stops on its own past this (the old gateway read on): twice the bound. */
  private static final long GUARD = 2L * SseReader.MAX_EVENT_BYTES;

  @Test
  void theClientGetsLeveesErrorEventAndTheUpstreamIsHungUpOn() throws Exception {
    CompletableFuture<String> upstreamEnd = new CompletableFuture<>();
    HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    upstream.createContext("/v1/messages", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.getResponseHeaders().add("content-type", "text/event-stream");
      exchange.sendResponseHeaders(200, 0);
      long written = 0;
      try (OutputStream out = exchange.getResponseBody()) {
        out.write((ScriptedUpstream.messageStart("fake-model", 5) + ScriptedUpstream.textStart()
            + ScriptedUpstream.text("Hello") + "event: content_block_delta\ndata: ").getBytes(StandardCharsets.UTF_8));
        out.flush();
        byte[] endless = new byte[64 * 1024];
        Arrays.fill(endless, (byte) 'x');
        while (written < GUARD) {
          out.write(endless);
          written += endless.length;
        }
        upstreamEnd.complete("wrote all " + written + " bytes: the gateway read on past the bound");
      } catch (IOException e) {
        upstreamEnd.complete("hung up on after " + written + " bytes");
      }
    });
    upstream.start();
    String config = "  fake:\n    url: http://127.0.0.1:" + upstream.getAddress().getPort() + "\n"
        + "models:\n  s:\n    chain: [fake/fake-model]\n    resume: off\n"
        + Harness.BASE_POLICY.replace("idle-timeout: 2s", "idle-timeout: 60s"); // a slow box reads 32 MiB in time
    try (Harness h = Harness.start(config)) {
      HttpResponse<String> response = h.post("/v1/messages", body("s"), HEADERS);

      assertThat(response.statusCode()).isEqualTo(200);
      String stream = response.body();
      assertThat(stream).contains("\"text\":\"Hello\"").contains("event: error\ndata: ")
          .contains("more than " + SseReader.MAX_EVENT_BYTES + " bytes").contains("api_error")
          .doesNotContain("message_stop").doesNotContain("xxxxxxxx");
      assertThat(upstreamEnd.join()).startsWith("hung up on");
    } finally {
      upstream.stop(0);
    }
  }

  private static String body(String model) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":64,\"stream\":true,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  }
}
