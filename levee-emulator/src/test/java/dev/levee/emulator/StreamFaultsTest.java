package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import com.anthropic.client.AnthropicClient;
import com.anthropic.errors.AnthropicInvalidDataException;
import com.anthropic.errors.SseException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Faults inside a stream that still ends: error events, malformed data, duplicates, slowness. */
class StreamFaultsTest extends InstantEmulatorTest {

  @Test
  void emuErrorSendsAnInBandOverloadedErrorAfterNDeltasThenEndsTheResponse() throws Exception {
    Wire.Raw raw = wire.rawExchange(Wire.body("emu-error-3", true, "hi"));

    assertThat(raw.complete()).as("the response ends normally, with its final chunk").isTrue();
    List<SseEvent> events = ConnectionFaultsTest.parse(ConnectionFaultsTest.unchunk(raw.body()));
    assertThat(events).filteredOn(e -> e.event().equals("content_block_delta")).hasSize(3);
    assertThat(events.getLast().event()).isEqualTo("error");
    JsonNode error = Json.tryParse(events.getLast().data());
    assertThat(error.path("type").asText()).isEqualTo("error");
    assertThat(error.path("error").path("type").asText()).isEqualTo("overloaded_error");
    assertThat(events).noneMatch(e -> e.event().equals("message_stop"));
    assertThat(emulator.log().getFirst().action()).isEqualTo("error@3");
  }

  @Test
  void theSdkRaisesTheInBandErrorAndTheRetryIsHealthy() {
    AnthropicClient client = Sdk.client(emulator);

    assertThatThrownBy(() -> Sdk.streamed(client, Sdk.params("emu-error-2", "hi")))
        .isInstanceOf(SseException.class).hasMessageContaining("overloaded_error");
    String retried = Sdk.text(Sdk.streamed(client, Sdk.params("emu-error-2", "hi")));

    assertThat(retried).isEqualTo(Sdk.text(client.messages().create(Sdk.params("emu-ok", "hi"))));
    client.close();
  }

  @Test
  void aJsonRequestToAnErrorModelGetsA529() throws Exception {
    HttpResponse<String> response = wire.post("/v1/messages", Wire.body("emu-error-3", false, "hi"));

    assertThat(response.statusCode()).isEqualTo(529);
    assertThat(emulator.log().getFirst().action()).isEqualTo("529");
  }

  @Test
  void emuMalformedSendsOneEventThatIsNotJsonThenContinues() throws Exception {
    List<SseEvent> events = wire.events(Wire.body("emu-malformed-2", true, "hi"));
    String healthy = Wire.streamedText(wire.events(Wire.body("emu-ok", true, "hi")));

    assertThat(events.get(5).event()).isEqualTo("content_block_delta");
    assertThat(Json.tryParse(events.get(5).data())).isNull();
    List<SseEvent> valid = events.stream().filter(e -> Json.tryParse(e.data()) != null).toList();
    assertThat(valid).hasSize(events.size() - 1);
    assertThat(Wire.streamedText(valid)).isEqualTo(healthy);
    assertThat(events.getLast().event()).isEqualTo("message_stop");
    assertThat(emulator.log().getFirst().action()).isEqualTo("malformed@2");
  }

  @Test
  void theSdkRejectsTheMalformedEventAndAMalformedJsonAnswer() {
    AnthropicClient client = Sdk.client(emulator);

    assertThatThrownBy(() -> Sdk.streamed(client, Sdk.params("emu-malformed-3", "hi")))
        .isInstanceOf(AnthropicInvalidDataException.class);
    assertThatThrownBy(() -> client.messages().create(Sdk.params("emu-malformed-3", "other")))
        .isInstanceOf(AnthropicInvalidDataException.class);
    assertThat(emulator.log()).extracting(LogEntry::action).containsExactly("malformed@3", "malformed@3");
    client.close();
  }

  @Test
  void emuDupSendsEveryContentDeltaTwice() throws Exception {
    List<SseEvent> healthy = wire.events(Wire.body("emu-ok", true, "hi"));
    List<SseEvent> doubled = wire.events(Wire.body("emu-dup", true, "hi"));

    long deltas = healthy.stream().filter(e -> e.event().equals("content_block_delta")).count();
    assertThat(doubled).hasSize(healthy.size() + (int) deltas);
    String text = Wire.streamedText(healthy);
    assertThat(Wire.streamedText(doubled)).hasSize(2 * text.length()).isNotEqualTo(text + text);
    for (int i = 0; i < doubled.size(); i++) {
      if (doubled.get(i).event().equals("content_block_delta")) {
        assertThat(doubled.get(i + 1)).isEqualTo(doubled.get(i));
        i++;
      }
    }
    assertThat(emulator.log().getLast().action()).isEqualTo("dup");
  }

  @Test
  void emuSlowTtftDelaysTheFirstDeltaByExactlyItsMillisecondsOnEveryAttempt() throws Exception {
    ManualClock clock = new ManualClock();
    try (Emulator slow = Emulator.start(EmulatorOptions.builder().ticker(clock).sleeper(clock)
        .timeToFirstToken(Duration.ofMillis(20)).deltaDelay(Duration.ofMillis(2)).build())) {
      Wire slowWire = new Wire(slow);

      slowWire.events(Wire.body("emu-slow-ttft-1500", true, "hi"));
      slowWire.events(Wire.body("emu-slow-ttft-1500", true, "hi"));
      slowWire.message(Wire.body("emu-slow-ttft-700", false, "hi"));
      long deltas = slowWire.events(Wire.body("emu-ok", true, "hi")).stream()
          .filter(e -> e.event().equals("content_block_delta")).count();

      // a JSON answer arrives after the time to first token plus 2 ms for each further delta
      assertThat(slow.log()).extracting(LogEntry::ttftMs)
          .containsExactly(1500L, 1500L, 700L + 2 * (deltas - 1), 20L);
      assertThat(slow.log()).extracting(LogEntry::action)
          .containsExactly("slow-ttft@1500", "slow-ttft@1500", "slow-ttft@700", "ok");
    }
  }
}
