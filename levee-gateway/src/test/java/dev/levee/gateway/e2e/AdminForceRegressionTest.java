package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import dev.levee.core.tier.Tier;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Regression: every bad tier force got one generic message, and {@code "99999999999h"} was accepted. */
class AdminForceRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\nadmin:\n  token: drill-token\n"
      + Harness.BASE_POLICY;

  @Test
  void aBadForceSaysWhatIsWrongAndChangesNothing() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      Map<String, String> admin = Map.of("authorization", "Bearer drill-token");
      Map<String, String> bodies = Map.of(
          "not json", "must be a JSON object",
          "[1]", "must be a JSON object",
          "{\"tier\":\"T9\"}", "tier must be",
          "{\"tier\":\"T1\",\"for\":\"banana\"}", "expected a duration",
          "{\"tier\":\"T1\",\"for\":600}", "duration string",
          "{\"tier\":\"T1\",\"for\":\"0s\"}", "at most 24h",
          "{\"tier\":\"T1\",\"for\":\"99999999999h\"}", "at most 24h");
      for (Map.Entry<String, String> bad : bodies.entrySet()) {
        HttpResponse<String> response = h.post("/admin/tiers/default", bad.getKey(), admin);

        assertThat(response.statusCode()).as(bad.getKey()).isEqualTo(400);
        assertThat(Json.tryParse(response.body()).path("error").path("message").asText()).as(bad.getKey())
            .contains(bad.getValue());
      }
      assertThat(h.gateway.tiers().tier("default")).isEqualTo(Tier.T0);
    }
  }
}
