package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): without {@code queue.secret}, a batch for an alias whose upstream
 * has no key of its own got a 500 that said only that the secret was not set. The error now says
 * what to configure, and that nothing was stored ({@code x-should-retry: false}); it is a 403 {@code
 * permission_error} since {@link BatchesWithoutSecretRefusedNotErrorRegressionTest}, no longer a 500.
 */
class BatchWithoutQueueSecretRegressionTest {

  @Test
  void aBatchThatWouldKeepTheClientsKeySaysWhatToConfigure() throws Exception {
    try (Harness h = Harness.start("models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY)) {
      String batch = "{\"requests\":[{\"custom_id\":\"a\",\"params\":{\"model\":\"chat\",\"max_tokens\":10,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}]}";

      HttpResponse<String> r = h.post("/v1/messages/batches", batch,
          Map.of("x-api-key", "sk-ant-test", "content-type", "application/json"));

      assertThat(r.statusCode()).isEqualTo(403);
      assertThat(r.headers().firstValue("x-should-retry")).contains("false");
      JsonNode error = Json.tryParse(r.body()).path("error");
      assertThat(error.path("type").asText()).isEqualTo("permission_error");
      assertThat(error.path("message").asText()).contains("'chat'").contains("queue.secret")
          .contains("head -c 32 /dev/urandom | base64").contains("Nothing was stored").doesNotContain("sk-ant-test");
      assertThat(h.getWith("/v1/messages/batches", "sk-ant-test").body()).contains("\"data\":[]");
    }
  }
}
