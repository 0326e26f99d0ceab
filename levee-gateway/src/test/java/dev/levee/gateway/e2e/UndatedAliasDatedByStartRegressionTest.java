package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.GatewayClock;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): {@code GET /v1/models} listed an alias whose first model the
 * upstream does not date (an emulator fault model, a model the upstream does not know, an upstream
 * away) with {@code created_at} {@code 1970-01-01T00:00:00Z}, which read as a bug. Such an alias is
 * now dated by the gateway's start, when Levee made it from its configuration (whole seconds, UTC);
 * an alias whose first model the upstream dates keeps that date.
 */
class UndatedAliasDatedByStartRegressionTest {

  private static final String CONFIG = """
      models:
        chat: { chain: [emu/claude-haiku-4-5] }
        odd: { chain: [emu/emu-500-once] }
      """ + Harness.BASE_POLICY;

  @Test
  void anAliasTheUpstreamDoesNotDateIsDatedByTheGatewaysStart() throws Exception {
    try (Harness h = started(Instant.parse("2026-03-01T10:00:00.123456Z"))) {
      assertThat(model(h, "odd").path("created_at").asText()).isEqualTo("2026-03-01T10:00:00Z");
      assertThat(h.sdk.models().retrieve("odd").createdAt().toInstant()).isEqualTo(Instant.parse("2026-03-01T10:00:00Z"));
      assertThat(model(h, "chat").path("created_at").asText()).as("dated by the upstream").isEqualTo("2025-10-15T00:00:00Z");
    }
  }

  @Test
  void theListDatesItTheSame() throws Exception {
    try (Harness h = started(Instant.parse("2026-03-01T10:00:00Z"))) {
      HttpResponse<String> list = h.getWith("/v1/models?limit=2", "sk-ant-test");
      assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
      JsonNode data = Json.tryParse(list.body()).path("data");

      assertThat(data.get(1).path("id").asText()).isEqualTo("odd");
      assertThat(data.get(1).path("created_at").asText()).isEqualTo("2026-03-01T10:00:00Z");
    }
  }

  /** A gateway whose wall clock reads {@code now}. */
  private static Harness started(Instant now) throws Exception {
    GatewayClock real = GatewayClock.system();
    return Harness.start(EmulatorOptions.defaults(), CONFIG, "",
        new GatewayClock(real.ticker(), real.sleeper(), InstantSource.fixed(now), real.random(), real.scheduler()));
  }

  private static JsonNode model(Harness h, String id) throws Exception {
    HttpResponse<String> response = h.getWith("/v1/models/" + id, "sk-ant-test");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return Json.tryParse(response.body());
  }
}
