package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.levee.anthropic.Json;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review, session 11: an alias's release date is looked up from its first model's upstream
 * ({@code GET /v1/models/{model}}, up to 2 s), and a look-up that failed was tried again on every
 * request — during an outage each {@code /v1/models} answer waited on, and added a call to, an
 * upstream already failing. A failed look-up now waits a minute before the next.
 */
class FailedReleaseDateLookUpWaitsRegressionTest {

  @Test
  void aFailedLookUpIsNotRepeatedWithinAMinute() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    HttpServer sick = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    sick.createContext("/", exchange -> {
      asked.incrementAndGet();
      exchange.sendResponseHeaders(503, -1);
      exchange.close();
    });
    sick.start();
    ManualClock clock = new ManualClock();
    String yaml = "  sick:\n    url: http://127.0.0.1:" + sick.getAddress().getPort() + "\n"
        + "models:\n  gone: { chain: [sick/claude-gone] }\n" + Harness.BASE_POLICY;
    try (Harness h = Harness.start(EmulatorOptions.defaults(), yaml, "", VirtualTime.gateway(clock, 1))) {
      String started = createdAt(h);
      assertThat(createdAt(h)).as("the gateway's start, until the upstream says").isEqualTo(started);
      assertThat(asked.get()).as("one look-up for two requests within the minute").isEqualTo(1);

      clock.advance(Duration.ofSeconds(61));
      createdAt(h);
      assertThat(asked.get()).as("asked again a minute on").isEqualTo(2);
    } finally {
      sick.stop(0);
    }
  }

  private static String createdAt(Harness h) throws Exception {
    HttpResponse<String> response = h.getWith("/v1/models/gone", "sk-ant-test");
    assertThat(response.statusCode()).isEqualTo(200);
    return Json.tryParse(response.body()).path("created_at").asText();
  }
}
