package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.tier.Tier;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.config.ThinkingPolicy;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial, {@code /admin/tiers}:
 *
 * <ul>
 *   <li>Forcing the tier already forced kept the first force's words ({@code "forced to T2 for 600
 *       s"} after a new 60 s force): now the new force's reason and end replace the old ones ({@code
 *       forced_reason}, {@code forced_remaining_ms}, and the cause requests carry).
 *   <li>A tier was {@code t1} or {@code T1} for the admin endpoint, but the config's {@code thinking:
 *       T0} was refused (only {@code t0}): tier names are now taken in any case everywhere, and
 *       shown as {@code T1}.
 * </ul>
 */
class AdminForceWordsRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\nadmin:\n  token: drill-token\n"
      + Harness.BASE_POLICY;
  private static final Map<String, String> ADMIN = Map.of("authorization", "Bearer drill-token");

  private static JsonNode feature(HttpResponse<String> answer, String name) {
    for (JsonNode f : Json.tryParse(answer.body()).path("features")) {
      if (f.path("feature").asText().equals(name)) {
        return f;
      }
    }
    throw new AssertionError("no feature " + name + " in " + answer.body());
  }

  @Test
  void aNewForceOfTheSameTierReplacesTheOldReasonAndEnd() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      assertThat(h.post("/admin/tiers/default", "{\"tier\":\"T2\",\"for\":\"10m\"}", ADMIN).statusCode()).isEqualTo(200);

      HttpResponse<String> again = h.post("/admin/tiers/default", "{\"tier\":\"T2\",\"for\":\"1m\"}", ADMIN);

      assertThat(h.gateway.tiers().cause("default", "chat")).as("old: the first force's").isEqualTo("forced to T2 for 60 s");
      assertThat(h.gateway.tiers().degraded().getFirst().reason()).isEqualTo("forced to T2 for 60 s");
      JsonNode f = feature(again, "default");
      assertThat(f.path("forced_remaining_ms").asLong()).isBetween(1L, 60_000L);
      assertThat(f.path("forced_reason").asText()).as(f.toString()).isEqualTo("forced to T2 for 60 s");
    }
  }

  @Test
  void theConfigTakesATierNameInAnyCase() throws Exception {
    for (String written : new String[] {"T0", "t0"}) {
      GatewayConfig config = new ConfigLoader(Map.<String, String>of()::get).parse("""
          upstreams:
            anthropic: { url: "https://api.anthropic.com" }
          models:
            chat: { chain: [anthropic/claude-a] }
          features:
            chat: { thinking: %s }
          """.formatted(written), "test.yaml");
      assertThat(config.features().get("chat").thinking()).as(written).isEqualTo(ThinkingPolicy.T0);
    }
  }

  @Test
  void theAdminEndpointTakesATierInAnyCaseAndShowsItAsT1() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      HttpResponse<String> forced = h.post("/admin/tiers/default", "{\"tier\":\"t1\",\"for\":\"1m\"}", ADMIN);

      assertThat(forced.statusCode()).isEqualTo(200);
      assertThat(feature(forced, "default").path("tier").asText()).isEqualTo("T1");
      assertThat(feature(forced, "default").path("forced_reason").asText()).isEqualTo("forced to T1 for 60 s");
      assertThat(h.gateway.tiers().tier("default")).isEqualTo(Tier.T1);
    }
  }
}
