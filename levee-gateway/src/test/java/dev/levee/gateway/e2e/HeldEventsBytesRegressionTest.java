package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review of the event bound (session 22): before its first content delta a stream holds back every
 * event it reads (so that a failure there is a retry the client never sees), bounded by {@code
 * hold-limit} (64) in number but not in size; with each event allowed up to 32 MiB, one upstream
 * could make a stream hold 2 GiB. The events held now also hold at most 32 MiB together: past that
 * the attempt fails as one that sent too many events before its first delta, and the upstream is
 * hung up on. Here an upstream sends 4 MiB pings, twenty of them (80 MiB, under the hold limit's
 * count), and only then its first delta.
 */
class HeldEventsBytesRegressionTest {

  private static final Map<String, String> HEADERS = Map.of("content-type", "application/json",
      "x-api-key", "sk-test-client-key", "anthropic-version", "2023-06-01");
  private static final int PINGS = 20;

  @Test
  void eventsPastThirtyTwoMibBeforeTheFirstDeltaFailTheAttemptAndTheUpstreamIsHungUpOn() throws Exception {
    AtomicInteger hungUp = new AtomicInteger();
    AtomicInteger wroteAll = new AtomicInteger();
    HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    byte[] ping = ("event: ping\ndata: {\"type\":\"ping\",\"pad\":\"" + "x".repeat(4 << 20) + "\"}\n\n")
        .getBytes(StandardCharsets.UTF_8);
    upstream.createContext("/v1/messages", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.getResponseHeaders().add("content-type", "text/event-stream");
      exchange.sendResponseHeaders(200, 0);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(ScriptedUpstream.messageStart("fake-model", 5).getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < PINGS; i++) {
          out.write(ping);
        }
        out.write((ScriptedUpstream.textStart() + ScriptedUpstream.text("Hello")).getBytes(StandardCharsets.UTF_8));
        wroteAll.incrementAndGet();
      } catch (IOException e) {
        hungUp.incrementAndGet();
      }
    });
    upstream.start();
    String config = "  fake:\n    url: http://127.0.0.1:" + upstream.getAddress().getPort() + "\n"
        + "models:\n  s:\n    chain: [fake/fake-model]\n"
        + Harness.BASE_POLICY.replace("idle-timeout: 2s", "idle-timeout: 60s")
            .replace("ttft-timeout: 3s", "ttft-timeout: 60s").replace("deadline: 10s", "deadline: 60s")
            .replace("attempt-timeout: 5s", "attempt-timeout: 60s");
    try (Harness h = Harness.start(config)) {
      HttpResponse<String> response = h.post("/v1/messages", body(), HEADERS);

      assertThat(response.body()).as("status %d", response.statusCode())
          .contains("more than 32 MiB of events before the first content delta").doesNotContain("Hello");
      assertThat(response.statusCode()).isGreaterThanOrEqualTo(500);
      assertThat(wroteAll.get()).as("an upstream that got to its delta").isZero();
      assertThat(hungUp.get()).as("attempts hung up on").isPositive();
    } finally {
      upstream.stop(0);
    }
  }

  private static String body() {
    return "{\"model\":\"s\",\"max_tokens\":64,\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  }
}
