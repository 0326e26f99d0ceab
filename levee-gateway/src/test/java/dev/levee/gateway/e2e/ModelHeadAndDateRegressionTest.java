package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.gateway.GatewayClock;
import dev.levee.emulator.EmulatorOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

/**
 * Regressions (models-api): {@code HEAD /v1/models/<alias>} answered 404 while {@code GET}
 * answered 200 (only GET reached the models handler); and an alias's {@code created_at} was the
 * time the gateway loaded its configuration, so it changed at every restart. HEAD now answers as
 * GET does, without a body; {@code created_at} is the release date of the alias's first model as
 * its upstream states it (else the gateway's start: {@link UndatedAliasDatedByStartRegressionTest}).
 */
class ModelHeadAndDateRegressionTest {

  private static final String CONFIG = """
      models:
        chat: { chain: [emu/claude-haiku-4-5, emu/emu-ok] }
        odd: { chain: [emu/emu-500-once] }
      """ + Harness.BASE_POLICY;

  @Test
  void headAnswersAsGetWithoutABody() throws Exception {
    try (Harness h = Harness.start(CONFIG);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      for (String path : new String[] {"/v1/models/chat", "/v1/models", "/v1/models/claude-opus-4-6"}) {
        HttpResponse<String> get = h.getWith(path, "sk-ant-test");
        HttpResponse<String> head = http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path))
            .header("x-api-key", "sk-ant-test").header("anthropic-version", "2023-06-01").method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
            HttpResponse.BodyHandlers.ofString());

        assertThat(head.statusCode()).as(path).isEqualTo(get.statusCode()).isEqualTo(200);
        assertThat(head.body()).as(path).isEmpty();
        assertThat(head.headers().firstValue("content-type")).as(path).hasValue("application/json");
        assertThat(head.headers().firstValue("x-levee-request-id")).as(path).isPresent();
      }
      HttpResponse<String> unknown = http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/models/nope"))
          .header("x-api-key", "sk-ant-test").header("anthropic-version", "2023-06-01").method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(unknown.statusCode()).isEqualTo(404);
    }
  }

  @Test
  void anAliasIsDatedByItsFirstModelNotByTheGatewaysStart() throws Exception {
    String firstStart;
    try (Harness h = started(Instant.parse("2026-03-01T10:00:00Z"))) {
      firstStart = model(h, "chat").path("created_at").asText();
      assertThat(firstStart).as("claude-haiku-4-5's release date, from the upstream").isEqualTo("2025-10-15T00:00:00Z");
      assertThat(model(h, "odd").path("created_at").asText()).as("a model the upstream does not list")
          .isEqualTo("2026-03-01T10:00:00Z");
      assertThat(h.sdk.models().retrieve("chat").createdAt().toInstant()).isEqualTo(Instant.parse(firstStart));
    }
    try (Harness h = started(Instant.parse("2026-03-02T11:30:00Z"))) { // a restart, a day later
      assertThat(model(h, "chat").path("created_at").asText()).isEqualTo(firstStart);
    }
  }

  /** A gateway whose wall clock reads {@code now} (the old code dated aliases by it). */
  private static Harness started(Instant now) throws Exception {
    GatewayClock real = GatewayClock.system();
    GatewayClock clock = new GatewayClock(real.ticker(), real.sleeper(), InstantSource.fixed(now), real.random(),
        real.scheduler());
    return Harness.start(EmulatorOptions.defaults(), CONFIG, "", clock);
  }

  private static JsonNode model(Harness h, String id) throws Exception {
    HttpResponse<String> response = h.getWith("/v1/models/" + id, "sk-ant-test");
    assertThat(response.statusCode()).isEqualTo(200);
    return Json.tryParse(response.body());
  }
}
