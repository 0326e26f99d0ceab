package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): the access line of an answer {@code /v1/models/{id}} relayed from
 * the upstream — its 200, and its 404 for a model it does not know ({@code outcome=rejected
 * not_found_error}) — did not name the upstream's id, although the answer carries it in {@code
 * request-id} (what the SDKs report) and the Messages path's relayed answers name it ({@code
 * upstream_id=req_…}): a reported id found no line. Both now end {@code upstream_id=<the
 * upstream's request-id>}; an answer Levee makes itself (an alias's model object) names none.
 * Through a real gateway in front of the emulator, on loopback.
 */
class ModelsUpstreamIdInAccessLogRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY;

  @Test
  void aRelayedModelAnswerNamesTheUpstreamsRequestId() throws Exception {
    try (Harness h = Harness.start(CONFIG); AccessLines access = new AccessLines()) {
      HttpResponse<String> known = h.getWith("/v1/models/claude-opus-4-6", "sk-ant-test");
      HttpResponse<String> unknown = h.getWith("/v1/models/claude-no-such-model", "sk-ant-test");
      HttpResponse<String> alias = h.getWith("/v1/models/chat", "sk-ant-test");
      assertThat(known.statusCode()).isEqualTo(200);
      assertThat(unknown.statusCode()).isEqualTo(404);
      assertThat(alias.statusCode()).isEqualTo(200);
      String knownId = known.headers().firstValue("request-id").orElseThrow();
      String unknownId = unknown.headers().firstValue("request-id").orElseThrow();
      assertThat(List.of(knownId, unknownId)).as("the emulator's ids, relayed").allSatisfy(id ->
          assertThat(id).startsWith("req_"));

      List<String> lines = access.await(List.of(leveeId(known), leveeId(unknown), leveeId(alias)));

      assertThat(lines).anySatisfy(line -> assertThat(line).contains(" - " + leveeId(known) + " ")
          .contains(" status=200 ").endsWith(" outcome=ok upstream_id=" + knownId));
      assertThat(lines).anySatisfy(line -> assertThat(line).contains(" - " + leveeId(unknown) + " ")
          .contains(" status=404 ").endsWith(" outcome=rejected not_found_error upstream_id=" + unknownId));
      assertThat(lines).anySatisfy(line -> assertThat(line).contains(" - " + leveeId(alias) + " ")
          .endsWith(" outcome=ok"));
    }
  }

  private static String leveeId(HttpResponse<String> answer) {
    return answer.headers().firstValue("x-levee-request-id").orElseThrow();
  }
}
