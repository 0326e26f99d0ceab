package dev.levee.anthropic.sse;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseReaderTest {

  private static List<SseEvent> readAll(SseReader reader) throws IOException {
    List<SseEvent> events = new ArrayList<>();
    SseEvent e;
    while ((e = reader.next()) != null) {
      events.add(e);
    }
    return events;
  }

  private static SseReader reader(String text) {
    return new SseReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
  }

  /** Delivers one byte per read, to cross every buffer boundary. */
  private static InputStream trickle(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return new InputStream() {
      int i;

      @Override
      public int read() {
        return i < bytes.length ? bytes[i++] & 0xff : -1;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (i >= bytes.length) {
          return -1;
        }
        b[off] = bytes[i++];
        return 1;
      }
    };
  }

  @Test
  void readsEventsWithAnyLineEnding() throws IOException {
    String text = "event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\revent: c\ndata: 3\n\n";
    SseReader reader = reader(text);

    assertThat(readAll(reader)).containsExactly(new SseEvent("a", "1"), new SseEvent("b", "2"), new SseEvent("c", "3"));
  }

  @Test
  void skipsCommentsJoinsDataLinesAndKeepsUnknownEvents() throws IOException {
    String text = ": keep-alive\n\nevent: future_event\ndata: line one\ndata:line two\nid: 7\nretry: 10\n\n";
    assertThat(readAll(reader(text))).containsExactly(new SseEvent("future_event", "line one\nline two"));
  }

  @Test
  void anEventWithoutANameIsAMessage() throws IOException {
    assertThat(readAll(reader("data: x\n\n"))).containsExactly(new SseEvent("message", "x"));
  }

  @Test
  void aPartialEventAtTheEndIsDropped() throws IOException {
    SseReader reader = reader("event: a\ndata: 1\n\nevent: content_block_delta\ndata: {\"trunc");

    assertThat(readAll(reader)).containsExactly(new SseEvent("a", "1"));
  }

  @Test
  void anEventMissingOnlyItsBlankLineIsAlsoPartial() throws IOException {
    SseReader reader = reader("event: a\ndata: 1\n");

    assertThat(readAll(reader)).isEmpty();
  }

  @Test
  void oneByteAtATimeGivesTheSameEvents() throws IOException {
    String text = "event: message_start\r\ndata: {\"a\":\"é🙂\"}\r\n\r\n: c\r\n\r\nevent: ping\ndata: {}\n\n";
    SseReader reader = new SseReader(trickle(text));

    assertThat(readAll(reader)).containsExactly(
        new SseEvent("message_start", "{\"a\":\"é🙂\"}"), new SseEvent("ping", "{}"));
  }

  @Test
  void longLinesSpanningManyBuffersAreReadWhole() throws IOException {
    String data = "x".repeat(100_000);
    assertThat(readAll(reader("event: big\ndata: " + data + "\n\n"))).containsExactly(new SseEvent("big", data));
  }

  @Test
  void whatTheWriterWritesTheReaderReads() throws IOException {
    List<SseEvent> events = List.of(new SseEvent("a", "{\"x\":1}"), new SseEvent("b", "two\nlines"), new SseEvent("c", ""));
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    SseWriter writer = new SseWriter(out);
    for (SseEvent e : events) {
      writer.write(e);
    }
    assertThat(readAll(new SseReader(new ByteArrayInputStream(out.toByteArray())))).isEqualTo(events);
  }

  @Test
  void theWriterUsesTheApisExactFormat() {
    assertThat(new String(SseWriter.encode(new SseEvent("ping", "{\"type\": \"ping\"}")), StandardCharsets.UTF_8))
        .isEqualTo("event: ping\ndata: {\"type\": \"ping\"}\n\n");
    assertThat(new String(SseWriter.encode(new SseEvent("e", "a\nb")), StandardCharsets.UTF_8))
        .isEqualTo("event: e\ndata: a\ndata: b\n\n");
  }
}
