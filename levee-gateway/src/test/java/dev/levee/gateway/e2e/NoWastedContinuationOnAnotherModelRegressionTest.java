package dev.levee.gateway.e2e;

import static dev.levee.gateway.e2e.ScriptedUpstream.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12's leftovers): when a break leaves no output tokens by the high count,
 * Levee still asks for a continuation of 1 token when the first target to ask is of the first
 * attempt's model: its input count may show the answer cost less (docs/streams.md). That call went
 * through the whole chain: when the same model could not answer it, a fallback of another model
 * was asked for its 1 token — whose count Levee never believes (another tokenizer), so its
 * continuation was always dropped at its {@code message_start}: a whole prompt billed for nothing.
 * Now only the targets of the first attempt's model are asked for it, and when none answers the
 * answer ends at its {@code max_tokens} as it would have without asking.
 *
 * <p>The script: model {@code a} streams 60 bytes of text (counted 30 tokens high, over the 8
 * asked for) and then an in-band {@code overloaded_error}; every later call of {@code a} is
 * answered 529. Model {@code b} answers anything.
 */
class NoWastedContinuationOnAnotherModelRegressionTest {

  private static final Map<String, String> HEADERS = Map.of("content-type", "application/json",
      "x-api-key", "sk-test-client-key", "anthropic-version", "2023-06-01");

  @Test
  void aBreakWithNothingLeftNeverAsksAnotherModelForOneToken() throws Exception {
    try (ScriptedUpstream upstream = new ScriptedUpstream(request -> switch (request.path("model").asText()) {
      case "a" -> request.path("max_tokens").asLong() == 8
          ? Answer.stream(messageStart("a", 5), textStart(), text(" abcdefghijklmnopqrs"), text(" bcdefghijklmnopqrst"),
              text(" cdefghijklmnopqrstu"), overloadedEvent())
          : Answer.overloaded();
      default -> Answer.stream(messageStart("b", 40), textStart(), text(" b"), end("max_tokens", 1));
    });
        Harness h = Harness.start(upstream.upstream("fake") + "models:\n  s:\n    chain: [fake/a, fake/b]\n"
            + Harness.BASE_POLICY)) {
      HttpResponse<String> response = h.post("/v1/messages", "{\"model\":\"s\",\"max_tokens\":8,\"stream\":true,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", HEADERS);

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(upstream.calls.stream().filter(c -> c.path("max_tokens").asLong() == 1))
          .as("1-token continuations asked, all of model a: %s", upstream.calls)
          .isNotEmpty().allMatch(c -> c.path("model").asText().equals("a"));
      assertThat(response.body()).as("ends as an answer at its limit does")
          .contains(" cdefghijklmnopqrstu", "\"stop_reason\":\"max_tokens\"", "event: message_stop")
          .doesNotContain("event: error");
    }
  }
}
