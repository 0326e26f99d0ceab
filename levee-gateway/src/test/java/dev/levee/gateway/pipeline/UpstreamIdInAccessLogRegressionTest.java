package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.upstream.Reply;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 7 newcomer trial): a relayed answer keeps the upstream's {@code request-id},
 * which is what an SDK reports as the request's id ({@code err.requestID} of a stream Levee could
 * not finish), but the access log held only Levee's id, so the id a user reported was found in no
 * log line. The access record of a relayed answer now carries {@code upstream_id=}.
 */
class UpstreamIdInAccessLogRegressionTest {

  private static Reply reply(Map<String, List<String>> headers) {
    return Reply.whole(200, headers, "{}".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aRelayedAnswersUpstreamIdIsInItsAccessRecord() {
    assertThat(Responder.upstreamId(reply(Map.of("request-id", List.of("req_011CbA1xBMZI6TQXpi5LnSmJ")))))
        .isEqualTo(" upstream_id=req_011CbA1xBMZI6TQXpi5LnSmJ");
  }

  @Test
  void noIdWhenTheUpstreamSentNone() {
    assertThat(Responder.upstreamId(reply(Map.of()))).isEmpty();
  }

  @Test
  void anIdThatIsNotOnePlainWordIsLeftOutSoTheLineStaysKeyValueWords() {
    assertThat(Responder.upstreamId(reply(Map.of("request-id", List.of("req_1 outcome=ok"))))).isEmpty();
    assertThat(Responder.upstreamId(reply(Map.of("request-id", List.of("x".repeat(129)))))).isEmpty();
    assertThat(Responder.upstreamId(reply(Map.of("request-id", List.of(""))))).isEmpty();
    assertThat(Responder.upstreamId(reply(Map.of("request-id", List.of("req_\u00e9t\u00e9"))))).isEmpty();
    assertThat(Responder.upstreamId(reply(Map.of("request-id", List.of("req/1"))))).isEmpty();
  }

  @Test
  void everyCharacterOfAPlainWordIsKeptUpTo128() {
    String word = "AZaz09_.:-" + "x".repeat(118);
    assertThat(Responder.upstreamId(reply(Map.of("request-id", List.of(word))))).isEqualTo(" upstream_id=" + word);
  }
}
