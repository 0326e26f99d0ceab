package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.AnthropicIoException;
import com.anthropic.models.messages.RawMessageStreamEvent;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseReader;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Faults at the connection level: hang, reset, cut, stall. */
class ConnectionFaultsTest {

  private final Emulator emulator = Emulator.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO)
      .deltaDelay(Duration.ZERO).pingInterval(Duration.ZERO).build());
  private final Wire wire = new Wire(emulator);

  @AfterEach
  void stop() {
    emulator.close();
  }

  @Test
  void emuHangNeverAnswersAndNoticesTheClientLeaving() throws Exception {
    try (HttpClient leaving = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      CompletableFuture<HttpResponse<String>> answer = leaving.sendAsync(
          wire.request("/v1/messages", Wire.body("emu-hang", false, "hi")).build(), HttpResponse.BodyHandlers.ofString());
      // the client leaves once the request is being served: a client timeout of 300 ms could fire
      // before a loaded emulator had logged the request, and the log was read empty
      emulator.awaitLog(entries -> !entries.isEmpty(), Duration.ofSeconds(10));
      assertThatThrownBy(() -> answer.get(300, TimeUnit.MILLISECONDS)).as("no answer")
          .isInstanceOf(TimeoutException.class);
      leaving.shutdownNow();
    }

    List<LogEntry> log = emulator.awaitLog(entries -> entries.getFirst().finished(), Duration.ofSeconds(10));

    assertThat(log.getFirst().action()).isEqualTo("hang");
    assertThat(log.getFirst().status()).isZero();
    assertThat(log.getFirst().clientGoneEarly()).isTrue();
  }

  @Test
  void emuResetResetsTheFirstAttemptBeforeAnyByteThenAnswers() throws Exception {
    assertThatThrownBy(() -> wire.rawExchange(Wire.body("emu-reset", true, "hi")))
        .isInstanceOf(IOException.class).hasMessageContaining("reset");

    Wire.Raw retry = wire.rawExchange(Wire.body("emu-reset", true, "hi"));

    assertThat(retry.complete()).isTrue();
    assertThat(retry.text()).startsWith("HTTP/1.1 200").contains("event: message_stop");
    assertThat(emulator.log()).extracting(LogEntry::action).containsExactly("reset", "ok");
    assertThat(emulator.log().getFirst().status()).isZero();
  }

  @Test
  void emuCutEndsTheStreamAfterNDeltasWithoutMessageStopOrTheFinalChunk() throws Exception {
    Wire.Raw raw = wire.rawExchange(Wire.body("emu-cut-5", true, "hi"));

    assertThat(raw.complete()).isFalse();
    assertThat(raw.text()).contains("Transfer-Encoding: chunked").doesNotContain("message_stop")
        .doesNotContain("message_delta").doesNotEndWith("0\r\n\r\n");
    List<SseEvent> events = parse(unchunk(raw.body()));
    assertThat(events).filteredOn(e -> e.event().equals("content_block_delta")).hasSize(5);
    assertThat(events.getLast().event()).isEqualTo("content_block_delta");
    assertThat(emulator.log().getFirst().action()).isEqualTo("cut@5");
    assertThat(emulator.log().getFirst().clientGoneEarly()).isFalse();
  }

  @Test
  void theSdkSeesACutStreamAsAnIoFailureAfterTheDeltasItGot() {
    // SDK 3.14: the chunked body ends without its final chunk → AnthropicIoException("Stream failed")
    // caused by OkHttp's EOFException; the events before the cut were delivered.
    AnthropicClient client = Sdk.client(emulator);
    List<RawMessageStreamEvent> received = new ArrayList<>();

    assertThatThrownBy(() -> {
      try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(
          Sdk.params("emu-cut-3", "hi"))) {
        stream.stream().forEach(received::add);
      }
    }).isInstanceOf(AnthropicIoException.class).hasCauseInstanceOf(EOFException.class);

    assertThat(received).filteredOn(RawMessageStreamEvent::isContentBlockDelta).hasSize(3);
    assertThat(received).noneMatch(RawMessageStreamEvent::isMessageStop);
    client.close();
  }

  @Test
  void aCutFiresOnlyOnTheFirstAttemptUnlessAlways() throws Exception {
    assertThat(wire.rawExchange(Wire.body("emu-cut-2", true, "hi")).complete()).isFalse();
    assertThat(wire.rawExchange(Wire.body("emu-cut-2", true, "hi")).complete()).isTrue();
    assertThat(wire.rawExchange(Wire.body("emu-cut-2-always", true, "hi")).complete()).isFalse();
    assertThat(wire.rawExchange(Wire.body("emu-cut-2-always", true, "hi")).complete()).isFalse();
    assertThat(emulator.log()).extracting(LogEntry::action).containsExactly("cut@2", "ok", "cut@2", "cut@2");
  }

  @Test
  void aCutJsonAnswerDeclaresItsLengthButSendsHalf() throws Exception {
    Wire.Raw raw = wire.rawExchange(Wire.body("emu-cut-1", false, "hi"));

    int declared = Integer.parseInt(raw.text().replaceAll("(?s).*Content-Length: (\\d+).*", "$1"));
    assertThat(raw.body().getBytes(StandardCharsets.UTF_8).length).isEqualTo(declared / 2);
    assertThatThrownBy(() -> wire.post("/v1/messages", Wire.body("emu-cut-1", false, "other")))
        .isInstanceOf(IOException.class);
  }

  @Test
  void emuStallGoesSilentAfterNDeltasUntilTheClientLeaves() throws Exception {
    HttpResponse<InputStream> response = Wire.HTTP_CLIENT.send(
        wire.request("/v1/messages", Wire.body("emu-stall-4", true, "hi")).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    SseReader reader = new SseReader(response.body());
    int deltas = 0;
    while (deltas < 4) {
      if (reader.next().event().equals("content_block_delta")) {
        deltas++;
      }
    }

    CompletableFuture<SseEvent> next = CompletableFuture.supplyAsync(() -> {
      try {
        return reader.next();
      } catch (IOException e) {
        return null;
      }
    });
    assertThatThrownBy(() -> next.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
    response.body().close();

    List<LogEntry> log = emulator.awaitLog(entries -> entries.getFirst().finished(), Duration.ofSeconds(10));
    assertThat(log.getFirst().action()).isEqualTo("stall@4");
    assertThat(log.getFirst().clientGoneEarly()).isTrue();
  }

  @Test
  void aStalledStreamPingsAtTheConfiguredInterval() throws Exception {
    try (Emulator pinging = Emulator.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO)
        .deltaDelay(Duration.ZERO).pingInterval(Duration.ofMillis(20)).build())) {
      HttpResponse<InputStream> response = Wire.HTTP_CLIENT.send(
          new Wire(pinging).request("/v1/messages", Wire.body("emu-stall-0", true, "hi")).build(),
          HttpResponse.BodyHandlers.ofInputStream());
      SseReader reader = new SseReader(response.body());
      List<String> names = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        names.add(reader.next().event());
      }
      response.body().close();

      assertThat(names).containsExactly("message_start", "content_block_start", "ping", "ping", "ping", "ping");
    }
  }

  /** Decodes an HTTP/1.1 chunked body (possibly cut short); assumes ASCII, as the vocabulary is. */
  static String unchunk(String chunked) {
    StringBuilder out = new StringBuilder();
    byte[] bytes = chunked.getBytes(StandardCharsets.UTF_8);
    int i = 0;
    while (i < bytes.length) {
      int lineEnd = chunked.indexOf("\r\n", i);
      if (lineEnd < 0) {
        break;
      }
      int size = Integer.parseInt(new String(bytes, i, lineEnd - i, StandardCharsets.US_ASCII).trim(), 16);
      int start = lineEnd + 2;
      int end = Math.min(bytes.length, start + size);
      out.append(new String(bytes, start, end - start, StandardCharsets.UTF_8));
      i = end + 2;
      if (size == 0) {
        break;
      }
    }
    return out.toString();
  }

  static List<SseEvent> parse(String stream) throws IOException {
    List<SseEvent> events = new ArrayList<>();
    SseReader reader = new SseReader(new ByteArrayInputStream(stream.getBytes(StandardCharsets.UTF_8)));
    SseEvent event;
    while ((event = reader.next()) != null) {
      events.add(event);
    }
    return events;
  }
}
