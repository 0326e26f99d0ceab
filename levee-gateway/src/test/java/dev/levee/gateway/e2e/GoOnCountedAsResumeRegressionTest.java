package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12's leftovers): a recovered answer that stopped short of the client's {@code
 * max_tokens} goes on with one more continuation (docs/streams.md, "Going on to the limit"), and
 * that continuation was spliced into the stream without being counted: {@code
 * levee_stream_resumes_total} and {@code levee_stream_recoveries_total}, documented as the
 * continuations spliced into streams, said 1 where the emulator answered 2.
 *
 * <p>The script: {@code emu-cut-12} breaks after 12 deltas (24 words of the 40 asked for, counted 40
 * high), a 1-token continuation gives the upstream's own count, and a second continuation brings
 * the answer to its 40 words.
 */
class GoOnCountedAsResumeRegressionTest {

  private static final Map<String, String> HEADERS = Map.of("content-type", "application/json",
      "x-api-key", "sk-test-client-key", "anthropic-version", "2023-06-01");

  @Test
  void theContinuationThatGoesOnToMaxTokensIsCountedAsAResume() throws Exception {
    try (Harness h = Harness.start("models:\n  r:\n    chain: [emu/emu-cut-12]\n" + Harness.BASE_POLICY)) {
      HttpResponse<String> response = h.post("/v1/messages", "{\"model\":\"r\",\"max_tokens\":40,\"stream\":true,"
          + "\"messages\":[{\"role\":\"user\",\"content\":" + Json.string("a long story, take 19") + "}]}", HEADERS);
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).contains("\"stop_reason\":\"max_tokens\"").contains("event: message_stop");

      long continuations = h.emulator.log().stream().filter(e -> e.continuation() != null).count();
      assertThat(continuations).as("the recovery, then the one that went on").isEqualTo(2);
      Scrape metrics = new Scrape(h.awaitMetrics("levee_stream_resumes_total 2.0"));
      assertThat(metrics.value("levee_stream_resumes_total")).isEqualTo(2);
      assertThat(metrics.value("levee_stream_recoveries_total", Map.of("alias", "r"))).isEqualTo(2);
    }
  }
}
