package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (models-api): {@code x-levee-reason} was set only when every target failed. An answer
 * that came after retries, a fallback or a hedge said how many calls it took ({@code
 * x-levee-attempts}) and whether another target answered ({@code x-levee-fallback}), but not why:
 * a 529 storm on the primary and a slow primary that was hedged looked alike. It now names how each
 * target the request met ended, in the words of the all-failed answer; a first call's answer has
 * none. (A cached answer standing in for a failure had it already, with {@code x-levee-cache: stale}.)
 */
class AnswerAfterDetourSaysWhyRegressionTest {

  private static final String CONFIG = """
      models:
        solo: { chain: [emu/emu-ok] }
        flaky: { chain: [emu/emu-500-once] }
        pair: { chain: [emu/emu-529, emu/emu-ok] }
        slow:
          chain: [emu/emu-slow-ttft-3000, emu/emu-ok]
          hedge: { after: 500ms }
      """ + Harness.BASE_POLICY;

  private static final Map<String, String> HEADERS = Map.of("x-api-key", "k", "content-type", "application/json");

  @Test
  void retriesFallbacksAndHedgesAreExplained() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      HttpResponse<String> plain = ask(h, "solo", false);
      assertThat(plain.headers().firstValue("x-levee-reason")).as("a plain pass-through").isEmpty();

      HttpResponse<String> retried = ask(h, "flaky", false);
      assertThat(retried.statusCode()).isEqualTo(200);
      assertThat(retried.headers().firstValue("x-levee-attempts")).hasValue("2");
      assertThat(retried.headers().firstValue("x-levee-reason"))
          .hasValue("emu/emu-500-once: 500 api_error (1 call), then answered");

      HttpResponse<String> fellBack = ask(h, "pair", false);
      assertThat(fellBack.headers().firstValue("x-levee-fallback")).hasValue("true");
      assertThat(fellBack.headers().firstValue("x-levee-reason")).hasValue(
          "emu/emu-529: 529 overloaded_error (" + (Integer.parseInt(fellBack.headers().firstValue("x-levee-attempts")
              .orElseThrow()) - 1) + " calls); emu/emu-ok: answered");

      HttpResponse<String> streamed = ask(h, "pair", true);
      assertThat(streamed.headers().firstValue("x-levee-reason")).as("a stream's head, at its commit point")
          .get().asString().startsWith("emu/emu-529: 529 overloaded_error (").endsWith("; emu/emu-ok: answered");

      HttpResponse<String> hedged = ask(h, "slow", false);
      assertThat(hedged.headers().firstValue("x-levee-reason")).get().asString()
          .matches("emu/emu-slow-ttft-3000: cancelled after \\d+ ms, its hedge answered first; emu/emu-ok: answered \\(hedge\\)");
    }
  }

  private static HttpResponse<String> ask(Harness h, String alias, boolean stream) throws Exception {
    return h.post("/v1/messages", "{\"model\":\"" + alias + "\",\"max_tokens\":16,\"stream\":" + stream
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"why " + alias + stream + "\"}]}", HEADERS);
  }
}
