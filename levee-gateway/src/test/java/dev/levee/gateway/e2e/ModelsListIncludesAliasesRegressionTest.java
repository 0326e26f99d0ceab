package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.models.models.ModelInfo;
import com.anthropic.models.models.ModelListPage;
import com.anthropic.models.models.ModelListParams;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression (models-api): {@code GET /v1/models} was the upstream's list alone, so a client
 * discovering models (an SDK's {@code models().list()}) never saw the aliases it is meant to send.
 * The list now starts with the configured aliases (marked "Levee alias" in {@code display_name}),
 * then the upstream's models, paged as one list with {@code limit}, {@code after_id} and {@code
 * before_id}; when the upstream cannot list, the aliases are still listed.
 */
class ModelsListIncludesAliasesRegressionTest {

  private static final String CONFIG = """
      models:
        chat: { chain: [emu/claude-haiku-4-5, emu/emu-ok] }
        fast: { chain: [emu/emu-ok] }
      """ + Harness.BASE_POLICY;

  private static final List<String> EMULATOR = List.of("claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-5",
      "claude-haiku-4-5", "claude-sonnet-4-5", "emu-ok");

  @Test
  void theSdkListsTheAliasesFirstThenTheUpstreamsModels() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      ModelListPage first = h.sdk.models().list();

      assertThat(first.data()).extracting(ModelInfo::id).startsWith("chat", "fast", "claude-opus-4-6");
      assertThat(first.data().getFirst().displayName()).isEqualTo("chat (Levee alias: claude-haiku-4-5, emu-ok)");
      assertThat(first.hasNextPage()).isFalse();

      List<String> paged = new ArrayList<>();
      h.sdk.models().list(ModelListParams.builder().limit(2).build()).autoPager().forEach(m -> paged.add(m.id()));
      List<String> expected = new ArrayList<>(List.of("chat", "fast"));
      expected.addAll(EMULATOR);
      assertThat(paged).as("every page, no model twice").containsExactlyElementsOf(expected);

      List<String> afterChat = new ArrayList<>();
      h.sdk.models().list(ModelListParams.builder().afterId("chat").limit(3).build()).data()
          .forEach(m -> afterChat.add(m.id()));
      assertThat(afterChat).containsExactly("fast", "claude-opus-4-6", "claude-sonnet-4-6");
    }
  }

  @Test
  void pagesBeforeAnIdReachBackIntoTheAliases() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      JsonNode back = page(h, "?before_id=claude-sonnet-4-6&limit=2");
      assertThat(ids(back)).containsExactly("fast", "claude-opus-4-6");
      assertThat(back.path("has_more").asBoolean()).isTrue();
      assertThat(back.path("first_id").asText()).isEqualTo("fast");
      assertThat(back.path("last_id").asText()).isEqualTo("claude-opus-4-6");

      JsonNode start = page(h, "?before_id=fast&limit=2");
      assertThat(ids(start)).containsExactly("chat");
      assertThat(start.path("has_more").asBoolean()).isFalse();

      HttpResponse<String> bad = h.getWith("/v1/models?limit=0", "sk-ant-test");
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(Json.tryParse(bad.body()).path("error").path("type").asText()).isEqualTo("invalid_request_error");
      // newcomer trial 2, session 11: this 400 had no request_id in its body and no request-id header
      String id = bad.headers().firstValue("x-levee-request-id").orElseThrow();
      assertThat(Json.tryParse(bad.body()).path("request_id").asText()).isEqualTo(id);
      assertThat(bad.headers().firstValue("request-id")).hasValue(id);
    }
  }

  @Test
  void unknownQueryParametersAreIgnoredAndReachTheUpstreamAsSent() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      JsonNode plain = page(h, "?limit=3");
      JsonNode unknown = page(h, "?beta=true&limit=3&colour=blue%20green");
      JsonNode aliasesOnly = page(h, "?colour=blue&limit=1");

      assertThat(ids(plain)).containsExactly("chat", "fast", "claude-opus-4-6");
      assertThat(ids(unknown)).isEqualTo(ids(plain));
      assertThat(unknown.path("has_more").asBoolean()).isEqualTo(plain.path("has_more").asBoolean()).isTrue();
      assertThat(ids(aliasesOnly)).as("a page within the aliases: no upstream call").containsExactly("chat");
      assertThat(h.emulator.log()).filteredOn(e -> "/v1/models".equals(e.path())).extracting(e -> e.query())
          .as("Levee's own limit, the client's other parameters as sent")
          .containsExactly("limit=1", "beta=true&colour=blue%20green&limit=1");
    }
  }

  @Test
  void anUnreachableUpstreamStillListsTheAliases(@TempDir Path queueFolder) throws Exception {
    String yaml = "server: { port: 0 }\nupstreams:\n  gone:\n    url: http://127.0.0.1:19401\n"
        + "models:\n  chat: { chain: [gone/claude-haiku-4-5] }\n"
        + "queue: { folder: '" + queueFolder + "' }\n";
    Instant before = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    try (Gateway gateway = Gateway.start(new ConfigLoader(Map.<String, String>of()::get).parse(yaml, "test.yaml"));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      AnthropicClient sdk = AnthropicOkHttpClient.builder().baseUrl(gateway.baseUrl().toString()).apiKey("sk-x")
          .maxRetries(0).build();
      try {
        assertThat(sdk.models().list().data()).extracting(ModelInfo::id).containsExactly("chat");
      } finally {
        sdk.close();
      }

      HttpResponse<String> raw = http.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/v1/models"))
          .header("x-api-key", "sk-x").header("anthropic-version", "2023-06-01").GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(raw.statusCode()).isEqualTo(200);
      assertThat(Json.tryParse(raw.body()).path("has_more").asBoolean()).isFalse();
      assertThat(raw.headers().firstValue("x-levee-reason")).get().asString().startsWith("upstream models not listed: ");
      assertThat(Instant.parse(Json.tryParse(raw.body()).path("data").get(0).path("created_at").asText()))
          .as("the first model's date is unknown: the gateway's start").isBetween(before, Instant.now());
    }
  }

  private static JsonNode page(Harness h, String query) throws Exception {
    HttpResponse<String> response = h.getWith("/v1/models" + query, "sk-ant-test");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return Json.tryParse(response.body());
  }

  private static List<String> ids(JsonNode page) {
    List<String> ids = new ArrayList<>();
    page.path("data").forEach(m -> ids.add(m.path("id").asText()));
    return ids;
  }
}
