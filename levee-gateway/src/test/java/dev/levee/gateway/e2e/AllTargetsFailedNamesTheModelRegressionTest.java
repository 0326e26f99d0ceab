package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.GatewayClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): when every target failed, the answer had no {@code x-levee-model}
 * — {@code model: emu-429-seq-40} got 429 with {@code x-levee-reason}, {@code retry-after: 40} and
 * {@code x-should-retry: false} but no model, and so did Levee's own 503 and 504 answers — though
 * docs/gateway.md promises it on upstream errors: the target that answered or refused. It now
 * names the last target whose call failed, or, when none was called, the chain's last target.
 *
 * <p>One gateway on virtual time (the attempt watchdog fires when the test advances the clock).
 */
class AllTargetsFailedNamesTheModelRegressionTest {

  private static final String CONFIG = """
      models:
        pair: { chain: [emu/emu-529, emu/emu-503] }
      policy:
        deadline: 10s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 0 }
        breaker: { failures: 1, window: 60s, open-for: 60s }
      """;

  @Test
  void everyAllFailedAnswerNamesTheLastTargetThatRefused() throws Exception {
    ManualClock clock = new ManualClock();
    GatewayClock virtual = VirtualTime.gateway(clock, 7);
    EmulatorOptions options = EmulatorOptions.builder().timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).build();
    try (Harness h = Harness.start(options, CONFIG, "", virtual);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      HttpResponse<String> limited = send(h, http, "emu-429-seq-40");
      assertThat(limited.statusCode()).as(limited.body()).isEqualTo(429);
      assertThat(limited.headers().firstValue("retry-after")).contains("40");
      assertThat(limited.headers().firstValue("x-levee-reason")).get().asString().startsWith("emu/emu-429-seq-40: 429");
      assertThat(limited.headers().firstValue("x-levee-model")).contains("emu/emu-429-seq-40");

      HttpResponse<String> failed = send(h, http, "pair");
      assertThat(failed.statusCode()).as(failed.body()).isEqualTo(503);
      assertThat(failed.body()).contains("All targets failed");
      assertThat(failed.headers().firstValue("x-levee-model")).as("the last that refused").contains("emu/emu-503");

      HttpResponse<String> open = send(h, http, "pair");
      assertThat(open.statusCode()).as(open.body()).isEqualTo(503);
      assertThat(open.body()).contains("circuit open");
      assertThat(h.attempts("emu-503")).as("no call: both circuits open").hasSize(1);
      assertThat(open.headers().firstValue("x-levee-model")).as("none called: the chain's last").contains("emu/emu-503");

      CompletableFuture<HttpResponse<String>> hung = sendAsync(h, http, "emu-hang");
      h.awaitLog(log -> log.stream().anyMatch(e -> "emu-hang".equals(e.model())));
      HttpResponse<String> timedOut = null;
      for (int i = 0; i < 100 && timedOut == null; i++) { // the attempt timeout fires on virtual time
        clock.advance(Duration.ofSeconds(5));
        try {
          timedOut = hung.get(100, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException notYet) {
          // the watchdog's cancel is still on its way
        }
      }
      assertThat(timedOut).isNotNull();
      assertThat(timedOut.statusCode()).as(timedOut.body()).isEqualTo(504);
      assertThat(timedOut.headers().firstValue("x-levee-model")).contains("emu/emu-hang");
    }
  }

  private static HttpResponse<String> send(Harness h, HttpClient http, String model) throws Exception {
    return http.send(request(h, model), HttpResponse.BodyHandlers.ofString());
  }

  private static CompletableFuture<HttpResponse<String>> sendAsync(Harness h, HttpClient http, String model) {
    return http.sendAsync(request(h, model), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest request(Harness h, String model) {
    String body = "{\"model\":\"" + model + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    return HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages"))
        .header("x-api-key", "k").header("content-type", "application/json").header("anthropic-version", "2023-06-01")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
  }
}
