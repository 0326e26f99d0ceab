package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 9, item 11): Levee's own 404 and 405 answers had no {@code request_id}, unlike
 * every other error it writes. They now carry one in the body and in {@code x-levee-request-id}.
 */
class OwnErrorsCarryRequestIdRegressionTest {

  @Test
  void notFoundAndMethodNotAllowedCarryARequestId() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      HttpResponse<String> notFound = h.get("/v2/nothing-here");
      HttpResponse<String> notAllowed = h.get("/v1/messages");
      HttpResponse<String> notAllowedHealth = h.post("/health", "", Map.of());

      for (HttpResponse<String> response : java.util.List.of(notFound, notAllowed, notAllowedHealth)) {
        JsonNode body = Json.tryParse(response.body());
        String id = body.path("request_id").asText();
        assertThat(id).as(response.uri().getPath()).startsWith("lv_");
        assertThat(response.headers().firstValue("x-levee-request-id")).contains(id);
      }
      assertThat(notFound.statusCode()).isEqualTo(404);
      assertThat(notAllowed.statusCode()).isEqualTo(405);
      assertThat(notAllowedHealth.statusCode()).isEqualTo(405);
      assertThat(h.emulator.log()).isEmpty();
    }
  }
}
