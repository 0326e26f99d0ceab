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

  /**
   * A line ends at its first CR or LF wherever it falls in the reader's eight-byte steps, and no
   * other byte ends it (those a step could mistake: the bytes beside CR and LF, and with the high
   * bit set).
   */
  @Test
  void aLineEndsAtItsFirstCrOrLfWhereverItFalls() throws IOException {
    byte[] nearMisses = {0x09, 0x0b, 0x0c, 0x0e, (byte) 0x8a, (byte) 0x8d, 0x1a, 0x1d, 0x00, 0x01, (byte) 0xff,
        (byte) 0x80, 0x7f, 0x2a, 'x'};
    for (String end : List.of("\n", "\r", "\r\n")) {
      for (int pad = 0; pad < 8; pad++) {
        for (int length = 0; length <= 40; length++) {
          byte[] data = new byte[length];
          for (int i = 0; i < length; i++) {
            data[i] = nearMisses[(i * 7 + length + pad) % nearMisses.length];
          }
          java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
          stream.writeBytes(("event: " + "e".repeat(pad + 1) + end + "data: ").getBytes(StandardCharsets.US_ASCII));
          stream.writeBytes(data);
          stream.writeBytes((end + end + "data: next" + end + end).getBytes(StandardCharsets.US_ASCII));
          for (InputStream in : List.of(new ByteArrayInputStream(stream.toByteArray()), trickleBytes(stream.toByteArray()))) {
            assertThat(readAll(new SseReader(in))).as("pad %d, length %d", pad, length)
                .containsExactly(new SseEvent("e".repeat(pad + 1), data), new SseEvent("message", "next"));
          }
        }
      }
    }
  }

  /** The writer writes a reader's one data line as it is, and data of several lines as several. */
  @Test
  void dataReadFromOneLineIsWrittenAsOneAndFromSeveralAsSeveral() throws IOException {
    String text = "event: a\ndata: {\"x\":1}\n\nevent: b\ndata: two\ndata: lines\n\n";
    List<SseEvent> events = readAll(reader(text));
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    SseWriter writer = new SseWriter(out);
    for (SseEvent e : events) {
      writer.write(e);
    }
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(text);
    assertThat(events.get(0).withIndex(3).oneLine()).isTrue();
  }

  private static InputStream trickleBytes(byte[] bytes) {
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
}
