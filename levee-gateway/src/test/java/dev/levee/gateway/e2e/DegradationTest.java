package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.HttpResponseFor;
import com.anthropic.errors.ServiceUnavailableException;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.levee.anthropic.Json;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.GatewayClock;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Issue 4 through the official Java SDK: what each tier answers, the cache, tenants, the last resort. */
class DegradationTest {

  private static final String CONFIG = """
      models:
        chat:
          chain: [emu/claude-big, emu/claude-small]
      features:
        default:
          priority: standard
        notes:
          fail-mode: closed
        faq:
          static-text: "The FAQ bot is resting. Try again soon."
          disclosure: inline
      admin:
        token: drill-token
      """ + Harness.BASE_POLICY;

  private static Message ask(AnthropicClient client, String feature, String prompt) {
    return client.messages().create(params(prompt).toBuilder().putAdditionalHeader("x-levee-feature", feature).build());
  }

  private static MessageCreateParams params(String prompt) {
    return MessageCreateParams.builder().model("chat").maxTokens(4096).addUserMessage(prompt).build();
  }

  @Test
  void atT1TheReducedTargetAnswersWithACappedMaxTokensAndNoThinking() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      h.gateway.tiers().controller("default").force(Tier.T1, Duration.ofMinutes(5));

      HttpResponseFor<Message> response = h.sdk.messages().withRawResponse().create(
          params("reduced please").toBuilder().enabledThinking(2048).build());

      assertThat(response.parse().model().asString()).isEqualTo("claude-small");
      assertThat(response.headers().values("x-levee-tier")).containsExactly("T1");
      assertThat(response.headers().values("x-levee-degraded")).containsExactly("T1: reduced model claude-small, max_tokens 4096 capped at 1024, thinking removed");
      LogEntry call = h.emulator.log().get(0);
      JsonNode sent = Json.tryParse(call.body());
      assertThat(sent.path("max_tokens").asInt()).isEqualTo(1024);
      assertThat(sent.has("thinking")).isFalse();
    }
  }

  @Test
  void atT0ThinkingPassesUntouched() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      h.sdk.messages().create(params("think at t0").toBuilder().enabledThinking(2048).build());

      JsonNode sent = Json.tryParse(h.emulator.log().get(0).body());
      assertThat(sent.path("thinking").path("budget_tokens").asInt()).isEqualTo(2048);
      assertThat(sent.path("max_tokens").asInt()).isEqualTo(4096);
    }
  }

  @Test
  void atT2AColdCacheWarmsUpInsteadOfFailingThenAnswersFromCache() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      h.gateway.tiers().controller("default").force(Tier.T2, Duration.ofMinutes(5));

      HttpResponseFor<Message> first = h.sdk.messages().withRawResponse().create(params("warm me up"));
      HttpResponseFor<Message> second = h.sdk.messages().withRawResponse().create(params("warm me up"));
      Message streamed = h.streamed(params("warm me up"));

      assertThat(first.headers().values("x-levee-cache")).containsExactly("miss");
      assertThat(second.headers().values("x-levee-cache")).containsExactly("hit");
      assertThat(Harness.text(second.parse())).isEqualTo(Harness.text(first.parse())).isEqualTo(h.expectedText("warm me up"));
      assertThat(Harness.text(streamed)).isEqualTo(Harness.text(first.parse()));
      assertThat(h.attempts("claude-small")).hasSize(1); // generated once, at T1, then served from cache
      assertThat(h.attempts("claude-big")).isEmpty();
    }
  }

  @Test
  void atT3AFailOpenFeatureAnswersItsStaticTextAsAWellFormedMessage() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      h.gateway.tiers().controller("faq").force(Tier.T3, Duration.ofMinutes(5));

      Message json = ask(h.sdk, "faq", "anything");
      Message streamed = Harness.streamed(h.sdk, params("anything").toBuilder().putAdditionalHeader("x-levee-feature", "faq").build());

      assertThat(Harness.text(json)).startsWith("The FAQ bot is resting. Try again soon.")
          .endsWith("[The assistant is unavailable; this is a standard reply.]"); // disclosure: inline
      assertThat(Harness.text(streamed)).isEqualTo(Harness.text(json));
      assertThat(json.stopReason()).hasValueSatisfying(r -> assertThat(r.asString()).isEqualTo("end_turn"));
      assertThat(h.emulator.log()).isEmpty();
    }
  }

  @Test
  void atT3AFailClosedFeatureRefusesWithRetryAfterAndEchoesTheInput() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      h.gateway.tiers().controller("notes").force(Tier.T3, Duration.ofMinutes(5));

      HttpResponse<String> response = h.post("/v1/messages",
          "{\"model\":\"chat\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"save my note: buy milk\"}]}",
          Map.of("x-api-key", "k", "content-type", "application/json", "x-levee-feature", "notes"));

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(response.headers().firstValue("retry-after")).isPresent();
      JsonNode error = Json.tryParse(response.body()).path("error");
      assertThat(error.path("type").asText()).isEqualTo("overloaded_error");
      assertThat(error.path("input").path("messages").get(0).path("content").asText()).isEqualTo("save my note: buy milk");
      assertThat(h.emulator.log()).isEmpty();
    }
  }

  @Test
  void theSdkRaisesTheFailClosedRefusalWithTheInputInItsBody() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      h.gateway.tiers().controller("notes").force(Tier.T3, Duration.ofMinutes(5));

      assertThatThrownBy(() -> ask(h.sdk, "notes", "save my note: call mum"))
          .isInstanceOfSatisfying(ServiceUnavailableException.class, e -> {
            assertThat(e.statusCode()).isEqualTo(503);
            assertThat(e.headers().values("retry-after")).isNotEmpty();
            JsonNode body = e.body().convert(JsonNode.class);
            assertThat(body.path("error").path("input").path("messages").get(0).path("content").asText())
                .isEqualTo("save my note: call mum");
          });
    }
  }

  @Test
  void tenantsNeverShareCachedAnswers() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      AnthropicClient alice = client(h, "sk-alice");
      AnthropicClient bob = client(h, "sk-bob");
      alice.messages().create(params("shared question")); // cached for alice at T0
      h.gateway.tiers().controller("default").force(Tier.T2, Duration.ofMinutes(5));

      HttpResponseFor<Message> aliceAgain = alice.messages().withRawResponse().create(params("shared question"));
      HttpResponseFor<Message> bobFirst = bob.messages().withRawResponse().create(params("shared question"));

      aliceAgain.parse(); // reading the body hands the connection back
      bobFirst.parse();
      assertThat(aliceAgain.headers().values("x-levee-cache")).containsExactly("hit");
      assertThat(bobFirst.headers().values("x-levee-cache")).containsExactly("miss");
      assertThat(h.emulator.log()).hasSize(2);
      alice.close();
      bob.close();
    }
  }

  @Test
  void noStoreIsNotCachedAndNoCacheIsNotServedFromCache() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      h.sdk.messages().create(params("private").toBuilder().putAdditionalHeader("cache-control", "no-store").build());
      h.sdk.messages().create(params("fresh only"));
      h.gateway.tiers().controller("default").force(Tier.T2, Duration.ofMinutes(5));

      var notStored = h.sdk.messages().withRawResponse().create(params("private"));
      var noCache = h.sdk.messages().withRawResponse().create(
          params("fresh only").toBuilder().putAdditionalHeader("cache-control", "no-cache").build());

      notStored.parse();
      noCache.parse();
      assertThat(notStored.headers().values("x-levee-cache")).containsExactly("miss");
      assertThat(noCache.headers().values("x-levee-cache")).containsExactly("miss");
      assertThat(h.emulator.log()).hasSize(4);
    }
  }

  @Test
  void whenEveryTargetFailsAnExpiredAnswerIsServedMarkedStale() throws Exception {
    ManualClock clock = new ManualClock();
    EmulatorOptions outage = VirtualTime.emulator(clock)
        .scenario(Scenario.builder().phase(Scenario.Phase.builder().from(Duration.ofMinutes(30)).status(529).build())
            .build())
        .build();
    GatewayClock virtual = VirtualTime.gateway(clock, 1);
    try (Harness h = Harness.start(outage, CONFIG, "", virtual)) {
      Message original = h.sdk.messages().create(params("remember me"));
      clock.advance(Duration.ofMinutes(45)); // past the 10 min hot TTL, and the upstream is now down

      HttpResponseFor<Message> stale = h.sdk.messages().withRawResponse().create(params("remember me"));

      assertThat(Harness.text(stale.parse())).isEqualTo(Harness.text(original));
      assertThat(stale.headers().values("x-levee-cache")).containsExactly("stale");
      assertThat(stale.headers().values("x-levee-degraded")).containsExactly("stale answer: every target failed");
      assertThat(h.emulator.log()).extracting(LogEntry::status).contains(529);
    }
  }

  @Test
  void adminEndpointsNeedTheTokenAndForceATierForADrill() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      String force = "{\"tier\":\"T2\",\"for\":\"5m\"}";

      HttpResponse<String> anonymous = h.post("/admin/tiers/default", force, Map.of());
      HttpResponse<String> forced = h.post("/admin/tiers/default", force, Map.of("authorization", "Bearer drill-token"));

      assertThat(anonymous.statusCode()).isEqualTo(401);
      assertThat(forced.statusCode()).isEqualTo(200);
      assertThat(h.gateway.tiers().tier("default")).isEqualTo(Tier.T2);
      JsonNode health = Json.tryParse(h.get("/health").body());
      assertThat(health.path("tiers").findValuesAsText("tier")).contains("T2");
    }
  }

  @Test
  void transitionsArePostedToTheWebhook() throws Exception {
    List<String> posted = new CopyOnWriteArrayList<>();
    java.util.concurrent.CountDownLatch got = new java.util.concurrent.CountDownLatch(1);
    HttpServer hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hook.createContext("/tiers", exchange -> {
      posted.add(new String(exchange.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
      got.countDown();
    });
    hook.start();
    try (Harness h = Harness.start(CONFIG + "tiers:\n  webhook: http://127.0.0.1:" + hook.getAddress().getPort() + "/tiers\n")) {
      h.gateway.tiers().controller("faq").force(Tier.T3, Duration.ofMinutes(1));

      assertThat(got.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      JsonNode transition = Json.tryParse(posted.get(0));
      assertThat(transition.path("feature").asText()).isEqualTo("faq");
      assertThat(transition.path("from").asText()).isEqualTo("T0");
      assertThat(transition.path("to").asText()).isEqualTo("T3");
      assertThat(transition.path("reason").asText()).isNotBlank();
      assertThat(transition.path("time").asText()).isNotBlank();
    } finally {
      hook.stop(0);
    }
  }

  private static AnthropicClient client(Harness h, String key) {
    return AnthropicOkHttpClient.builder().baseUrl(h.gateway.baseUrl().toString()).apiKey(key).maxRetries(0).build();
  }
}
