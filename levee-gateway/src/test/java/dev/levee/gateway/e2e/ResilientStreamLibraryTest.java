package dev.levee.gateway.e2e;

import dev.levee.anthropic.time.SystemClock;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.stream.MessageAssembler;
import dev.levee.anthropic.stream.ResilientStream;
import dev.levee.anthropic.stream.StreamEngine;
import dev.levee.anthropic.stream.StreamSettings;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Endpoint;
import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.ChainPolicy;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.chain.RetryBudgets;
import dev.levee.core.chain.Target;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.time.Ticker;
import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/** Issue 3's library: an application embeds Levee's resilient stream without the gateway. */
class ResilientStreamLibraryTest {

  @Test
  void anEmbeddedResilientStreamHidesACutAndYieldsTheWholeAnswer() throws Exception {
    try (Emulator emulator = Emulator.start(EmulatorOptions.defaults())) {
      Ticker ticker = SystemClock.ticker();
      FallbackChain chain = new FallbackChain(ChainPolicy.DEFAULT, new Breakers(CircuitBreakerConfig.DEFAULT, ticker, t -> { }),
          RetryBudgets.one(new RetryBudget(100, 0.2)), CallObserver.NONE, ticker, SystemClock.sleeper(), ThreadLocalRandom.current());
      StreamEngine engine = StreamEngine.standalone(chain,
          target -> new Endpoint(URI.create(emulator.baseUrl()), "app-key"), StreamSettings.DEFAULT);
      byte[] body = ("{\"model\":\"ignored\",\"max_tokens\":512,\"stream\":true,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"embedded question\"}]}").getBytes(StandardCharsets.UTF_8);
      OriginalRequest request = new OriginalRequest("/v1/messages", null,
          Map.of("anthropic-version", List.of("2023-06-01")), MessagesRequest.parse(body));
      List<Target> targets = List.of(new Target("emu", "emu-cut-5"));
      Cancellation cancellation = new Cancellation();

      ChainResult<Reply> opened = engine.open(request, targets, Deadline.after(Duration.ofSeconds(10), ticker), cancellation);
      MessageAssembler message = new MessageAssembler();
      try (ResilientStream stream = engine.resilient((ChainResult.Answered<Reply>) opened, request, targets, true, cancellation)) {
        SseEvent event;
        while ((event = stream.next()) != null) {
          message.accept(event);
        }
        assertThat(stream.recoveries()).isEqualTo(1);
      }

      JsonNode whole = Json.tryParse(message.message());
      assertThat(whole.path("content").get(0).path("text").asText()).isEqualTo(uninterrupted(emulator));
      assertThat(whole.path("stop_reason").asText()).isEqualTo("end_turn");
    }
  }

  private static String uninterrupted(Emulator emulator) throws Exception {
    try (var http = java.net.http.HttpClient.newHttpClient()) {
      var response = http.send(java.net.http.HttpRequest.newBuilder(URI.create(emulator.baseUrl() + "/v1/messages"))
          .header("x-api-key", "k").header("content-type", "application/json")
          .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"model\":\"emu-ok\",\"max_tokens\":512,"
              + "\"messages\":[{\"role\":\"user\",\"content\":\"embedded question\"}]}")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      return Json.tryParse(response.body()).path("content").get(0).path("text").asText();
    }
  }
}
