package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import dev.levee.core.tier.Tier;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression: every bad tier force got one generic message, and {@code "99999999999h"} was accepted.
 * Newcomer trial, session 22: a misspelled field ({@code {"teir":"T2"}}) heard "tier must be T0, T1,
 * T2, T3 or auto, was " with nothing after "was"; now it is named, and a body without {@code tier}
 * hears that it is missing.
 */
class AdminForceRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\nadmin:\n  token: drill-token\n"
      + Harness.BASE_POLICY;

  @Test
  void aBadForceSaysWhatIsWrongAndChangesNothing() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      Map<String, String> admin = Map.of("authorization", "Bearer drill-token");
      Map<String, String> bodies = Map.ofEntries(
          Map.entry("not json", "must be a JSON object"),
          Map.entry("[1]", "must be a JSON object"),
          Map.entry("{\"tier\":\"T9\"}", "tier must be"),
          Map.entry("{\"teir\":\"T2\"}", "unknown field 'teir'"),
          Map.entry("{\"tier\":\"T2\",\"fr\":\"10m\"}", "unknown field 'fr'"),
          Map.entry("{\"for\":\"10m\"}", "tier is missing"),
          Map.entry("{\"tier\":\"T1\",\"for\":\"banana\"}", "expected a duration"),
          Map.entry("{\"tier\":\"T1\",\"for\":600}", "duration string"),
          Map.entry("{\"tier\":\"T1\",\"for\":\"0s\"}", "at most 24h"),
          Map.entry("{\"tier\":\"T1\",\"for\":\"99999999999h\"}", "at most 24h"));
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
