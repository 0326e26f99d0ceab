package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (hostile-client session): {@code GET /v1/models?after_id=%ff}, a query whose
 * percent-encoded bytes are not UTF-8, made Jetty's parameter parser throw in the models list: a 500
 * {@code api_error} ("an emulator failure") with a stack trace at ERROR, and a gateway in front
 * relayed it as the upstream's own failure. It is the client's 400 {@code invalid_request_error}.
 */
class ModelsQueryNotUtf8RegressionTest {

  @ParameterizedTest
  @ValueSource(strings = {"/v1/models?after_id=%ff", "/v1/models?before_id=%C3%28", "/v1/models?limit=%ed%a0%80"})
  void aQueryThatIsNotUtf8IsTheClientsError(String target) throws Exception {
    try (Emulator emulator = Emulator.start(EmulatorOptions.defaults())) {
      HttpResponse<String> list = new Wire(emulator).get(target);

      assertThat(list.statusCode()).as(list.body()).isEqualTo(400);
      JsonNode error = Json.tryParse(list.body()).path("error");
      assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
      assertThat(error.path("message").asText()).contains("query");
    }
  }
}
