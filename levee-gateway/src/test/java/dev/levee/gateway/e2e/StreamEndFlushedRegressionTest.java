package dev.levee.gateway.e2e;

import static dev.levee.gateway.e2e.ScriptedUpstream.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (found in session 13 while scripting a dropped continuation): the relay gathers the
 * events it knows more follow at once and flushes before it would wait; a stream that ended while
 * its upstream still had bytes at hand — a continuation dropped at its {@code message_start}
 * because the answer was already at {@code max_tokens}, its later events unread — was never
 * flushed: the client got the first delta (flushed at the commit point) and nothing after, no
 * {@code message_stop}, while the access log said {@code outcome=stream_complete}. The relay now
 * flushes when the stream ends.
 *
 * <p>The script: model {@code a} streams 60 bytes of text (counted 30 tokens high, over the 8
 * asked for) and an in-band {@code overloaded_error}; its 1-token continuation's input says the
 * answer cost 10 tokens (the 8 are spent), and goes on with events Levee never reads.
 */
class StreamEndFlushedRegressionTest {

  private static final Map<String, String> HEADERS = Map.of("content-type", "application/json",
      "x-api-key", "sk-test-client-key", "anthropic-version", "2023-06-01");

  @Test
  void aStreamThatEndsWithItsUpstreamStillReadableReachesItsClientWhole() throws Exception {
    try (ScriptedUpstream upstream = new ScriptedUpstream(request -> request.path("max_tokens").asLong() == 8
        ? Answer.stream(messageStart("a", 5), textStart(), text(" abcdefghijklmnopqrs"), text(" bcdefghijklmnopqrst"),
            text(" cdefghijklmnopqrstu"), overloadedEvent())
        : Answer.stream(messageStart("a", 5 + 10), textStart(), text(" unread"), end("max_tokens", 1)));
        Harness h = Harness.start(upstream.upstream("fake") + "models:\n  s:\n    chain: [fake/a]\n" + Harness.BASE_POLICY)) {
      HttpResponse<String> response = h.post("/v1/messages", "{\"model\":\"s\",\"max_tokens\":8,\"stream\":true,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", HEADERS);

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).as("calls: %s", upstream.calls)
          .contains(" abcdefghijklmnopqrs", " bcdefghijklmnopqrst", " cdefghijklmnopqrstu")
          .doesNotContain("unread").contains("\"stop_reason\":\"max_tokens\"")
          .endsWith("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
      assertThat(upstream.calls).hasSize(2);
    }
  }
}
