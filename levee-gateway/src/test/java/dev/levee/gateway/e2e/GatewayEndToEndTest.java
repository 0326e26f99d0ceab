package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.HttpResponseFor;
import com.anthropic.errors.BadRequestException;
import com.anthropic.errors.OverloadedException;
import com.anthropic.models.messages.Message;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import dev.levee.gateway.GatewayClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Issue 2 through the official Java SDK: gateway → emulator, client retries off. */
class GatewayEndToEndTest {

  private static final String CONFIG = """
      models:
        smart:
          chain: [emu/emu-ok, emu/claude-fallback]
        overloaded:
          chain: [emu/emu-529, emu/claude-fallback]
        bad:
          chain: [emu/emu-400, emu/claude-fallback]
        limited:
          chain: [emu/emu-429-ra2, emu/claude-fallback]
        hanging:
          chain: [emu/emu-hang, emu/claude-fallback]
        resetting:
          chain: [emu/emu-reset]
        down:
          chain: [emu/emu-529, emu/emu-503]
      """ + Harness.BASE_POLICY.replace("attempt-timeout: 5s", "attempt-timeout: 700ms");

  private Harness h;

  @BeforeEach
  void start() throws Exception {
    h = Harness.start(CONFIG);
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  @Test
  void aJsonAnswerComesFromTheFirstTargetAndSaysSo() {
    HttpResponseFor<Message> response = h.sdk.messages().withRawResponse().create(Harness.params("smart", "json hello"));
    Message message = response.parse();

    assertThat(Harness.text(message)).isEqualTo(h.expectedText("json hello"));
    assertThat(message.model().asString()).isEqualTo("emu-ok");
    assertThat(response.headers().values("x-levee-model")).containsExactly("emu/emu-ok");
    assertThat(response.headers().values("x-levee-attempts")).containsExactly("1");
    assertThat(response.headers().values("x-levee-fallback")).containsExactly("false");
    assertThat(response.headers().values("request-id")).singleElement().asString().startsWith("req_");
  }

  @Test
  void aStreamedAnswerEqualsTheJsonAnswer() {
    Message streamed = h.streamed(Harness.params("smart", "stream hello"));

    assertThat(Harness.text(streamed)).isEqualTo(h.expectedText("stream hello"));
    assertThat(streamed.id()).startsWith("msg_");
    assertThat(streamed.stopReason()).hasValueSatisfying(r -> assertThat(r.asString()).isEqualTo("end_turn"));
  }

  @Test
  void anOverloadedPrimaryFallsBackAndTheBodyNamesTheFallback() {
    HttpResponseFor<Message> response = h.sdk.messages().withRawResponse().create(Harness.params("overloaded", "529 then"));
    Message message = response.parse();

    assertThat(message.model().asString()).isEqualTo("claude-fallback");
    assertThat(Harness.text(message)).isEqualTo(h.expectedText("529 then"));
    assertThat(response.headers().values("x-levee-fallback")).containsExactly("true");
    assertThat(response.headers().values("x-levee-model")).containsExactly("emu/claude-fallback");
    assertThat(h.attempts("emu-529")).hasSize(3); // first call + 2 retries
    assertThat(response.headers().values("x-levee-attempts")).containsExactly("4");
  }

  @Test
  void aStreamWhosePrimaryIsOverloadedFallsBackBeforeTheClientSeesAnything() {
    Message message = h.streamed(Harness.params("overloaded", "529 stream"));

    assertThat(message.model().asString()).isEqualTo("claude-fallback");
    assertThat(Harness.text(message)).isEqualTo(h.expectedText("529 stream"));
  }

  @Test
  void aBadRequestSurfacesAtOnceWithOneAttemptAndNoFallback() {
    assertThatThrownBy(() -> h.sdk.messages().create(Harness.params("bad", "bad request")))
        .isInstanceOf(BadRequestException.class);

    assertThat(h.emulator.log()).hasSize(1);
    assertThat(h.attempts("claude-fallback")).isEmpty();
  }

  @Test
  void aRateLimitWithRetryAfterIsWaitedOutOnTheSameTarget() throws Exception {
    ManualClock clock = new ManualClock(); // the wait is policy, not wire: it passes on virtual time
    EmulatorOptions options = VirtualTime.emulator(clock).build();
    GatewayClock virtual = VirtualTime.gateway(clock, 7);
    try (Harness onVirtualTime = Harness.start(options, CONFIG, "", virtual)) {
      Message message = onVirtualTime.sdk.messages().create(Harness.params("limited", "wait two seconds"));

      List<LogEntry> attempts = onVirtualTime.attempts("emu-429-ra2");
      assertThat(attempts).hasSize(2);
      assertThat(attempts.get(0).status()).isEqualTo(429);
      assertThat(attempts.get(1).atMs() - attempts.get(0).atMs()).isGreaterThanOrEqualTo(2000);
      assertThat(message.model().asString()).isEqualTo("emu-429-ra2");
    }
  }

  @Test
  void aHangingPrimaryTimesOutAndTheFallbackAnswersWithinTheDeadline() throws Exception {
    long start = System.nanoTime();
    Message message = h.sdk.messages().create(Harness.params("hanging", "hang please"));
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(message.model().asString()).isEqualTo("claude-fallback");
    assertThat(took).isLessThan(Duration.ofSeconds(10)); // the request's deadline
    List<LogEntry> log = h.awaitLog(l -> l.stream().filter(e -> e.model().equals("emu-hang")).allMatch(LogEntry::clientGoneEarly)
        && l.stream().anyMatch(e -> e.model().equals("emu-hang")));
    // a timeout hands off at once (issue 10): the silent primary is not retried while a fallback is left
    assertThat(log).filteredOn(e -> e.model().equals("emu-hang")).hasSize(1);
  }

  @Test
  void aConnectionResetIsRetried() {
    Message message = h.sdk.messages().create(Harness.params("resetting", "reset once"));

    assertThat(Harness.text(message)).isEqualTo(h.expectedText("reset once"));
    assertThat(h.attempts("emu-reset")).extracting(LogEntry::action).containsExactly("reset", "ok");
  }

  @Test
  void whenEveryTargetFailsTheClientGetsOneErrorThatSaysWhyAndNotToRetry() throws Exception {
    HttpResponse<String> response = h.post("/v1/messages",
        "{\"model\":\"down\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
        Map.of("x-api-key", "k", "content-type", "application/json"));

    assertThat(response.statusCode()).isEqualTo(503); // the last target's status
    assertThat(response.headers().firstValue("x-should-retry")).hasValue("false");
    JsonNode body = Json.tryParse(response.body());
    assertThat(body.path("type").asText()).isEqualTo("error");
    assertThat(body.path("error").path("message").asText())
        .contains("emu/emu-529: 529 overloaded_error (3 calls)")
        .contains("emu/emu-503: 503 api_error (3 calls)");
  }

  @Test
  void theSdkSeesTheFinalOverloadAsAnOverloadedError() {
    assertThatThrownBy(() -> h.sdk.messages().create(MessageCreateParamsFor.model("emu-529")))
        .isInstanceOf(OverloadedException.class);
    assertThat(h.attempts("emu-529")).hasSize(3);
  }

  @Test
  void aModelThatIsNoAliasGoesToTheFirstUpstreamUnchanged() {
    Message message = h.sdk.messages().create(Harness.params("claude-sonnet-4-5", "no alias"));

    assertThat(message.model().asString()).isEqualTo("claude-sonnet-4-5");
    assertThat(h.attempts("claude-sonnet-4-5")).hasSize(1);
  }

  @Test
  void betaHeadersUnknownFieldsAndTheQueryStringReachTheFallbackUnchanged() throws Exception {
    AnthropicClient client = h.sdk;
    com.anthropic.models.beta.messages.BetaMessage message = client.beta().messages().create(
        com.anthropic.models.beta.messages.MessageCreateParams.builder()
            .model("overloaded").maxTokens(64).addUserMessage("fidelity")
            .addBeta("context-management-2025-06-27").addBeta("a-future-beta-2030-01-01")
            .putAdditionalBodyProperty("x_levee_unknown", JsonValue.from(Map.of("kept", 0.70)))
            .putAdditionalQueryParam("beta", "true") // as Claude Code sends it
            .build());

    assertThat(message.model().asString()).isEqualTo("claude-fallback");
    List<LogEntry> log = h.emulator.log();
    assertThat(log).hasSize(4);
    LogEntry first = log.get(0);
    LogEntry fallback = log.get(3);
    assertThat(fallback.query()).isEqualTo("beta=true");
    assertThat(fallback.anthropicBeta()).isEqualTo(first.anthropicBeta())
        .contains("context-management-2025-06-27").contains("a-future-beta-2030-01-01");
    assertThat(fallback.anthropicVersion()).isEqualTo(first.anthropicVersion()).isNotBlank();
    assertThat(fallback.body()).contains("\"x_levee_unknown\"").contains("0.7");
    assertThat(fallback.body()).isEqualTo(first.body().replace("\"emu-529\"", "\"claude-fallback\""));
  }

  /** Params with a model and a fixed prompt. */
  private static final class MessageCreateParamsFor {
    static com.anthropic.models.messages.MessageCreateParams model(String model) {
      return Harness.params(model, "direct " + model);
    }
  }
}
