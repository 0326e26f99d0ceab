package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 16): {@code GET /v1/models} and {@code GET
 * /v1/models/<alias>}, answered by Levee (the list merges the aliases; an alias is Levee's to
 * describe), had only {@code x-levee-request-id} — not {@code request-id}, where the official SDKs
 * read an answer's id. They now carry Levee's id there too, as every answer Levee makes itself
 * does; an answer the upstream made keeps the upstream's own id.
 */
class ModelsAnswersCarryRequestIdRegressionTest {

  @Test
  void theListAndAnAliasCarryLeveesIdWhereTheSdksLook() throws Exception {
    try (Harness h = Harness.start("models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY)) {
      for (String path : new String[] {"/v1/models", "/v1/models/chat"}) {
        HttpResponse<String> answer = h.getWith(path, "sk-ant-test");
        assertThat(answer.statusCode()).as(path).isEqualTo(200);
        String own = answer.headers().firstValue("x-levee-request-id").orElseThrow();
        assertThat(answer.headers().firstValue("request-id")).as(path).hasValueSatisfying(id ->
            assertThat(id).satisfiesAnyOf(same -> assertThat(same).isEqualTo(own), // Levee's answer
                upstream -> assertThat(upstream).startsWith("req_"))); // or the upstream's own id, kept
      }
    }
  }
}
