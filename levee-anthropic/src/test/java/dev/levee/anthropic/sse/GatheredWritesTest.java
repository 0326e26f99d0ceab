package dev.levee.anthropic.sse;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The relay's write discipline (issue 11): the events of one upstream read leave in one write, and
 * no event is held waiting for another — everything whole is written before the reader waits.
 */
class GatheredWritesTest {

  private static final String A = "event: content_block_delta\ndata: {\"i\":1}\n\n";
  private static final String B = "event: content_block_delta\ndata: {\"i\":2}\n\n";
  private static final String C = "event: content_block_delta\ndata: {\"i\":3}\n\n";

  /** Upstream reads as given; between them nothing is available, and each read is logged. */
  private static final class Reads extends InputStream {
    private final Deque<byte[]> reads = new ArrayDeque<>();
    private final List<String> log;
    private byte[] current = new byte[0];
    private int position;

    Reads(List<String> log, String... reads) {
      this.log = log;
      for (String r : reads) {
        this.reads.add(r.getBytes(StandardCharsets.UTF_8));
      }
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (position == current.length) {
        if (reads.isEmpty()) {
          return -1;
        }
        current = reads.poll();
        position = 0;
        log.add("read");
      }
      int n = Math.min(len, current.length - position);
      System.arraycopy(current, position, b, off, n);
      position += n;
      return n;
    }

    @Override
    public int read() {
      throw new UnsupportedOperationException();
    }

    @Override
    public int available() {
      return current.length - position;
    }
  }

  /** Logs each write with its bytes. */
  private static class Writes extends OutputStream {
    private final List<String> log;

    Writes(List<String> log) {
      this.log = log;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      log.add("write " + new String(b, off, len, StandardCharsets.UTF_8));
    }

    @Override
    public void write(int b) {
      throw new UnsupportedOperationException("one byte at a time");
    }
  }

  /** What Relay does: write each event, flushing when no whole event is at hand. */
  private static List<String> relay(String... upstreamReads) throws IOException {
    List<String> log = new ArrayList<>();
    SseReader reader = new SseReader(new Reads(log, upstreamReads));
    SseWriter writer = new SseWriter(new Writes(log));
    SseEvent event;
    while ((event = reader.next()) != null) {
      writer.write(event, !reader.ready());
    }
    return log;
  }

  @Test
  void eventsThatArriveTogetherLeaveTogether() throws IOException {
    assertThat(relay(A + B + C)).containsExactly("read", "write " + A + B + C);
  }

  @Test
  void oneWritePerUpstreamRead() throws IOException {
    assertThat(relay(A + B, C)).containsExactly("read", "write " + A + B, "read", "write " + C);
  }

  @Test
  void anEventIsNeverHeldWaitingForThePartOfTheNextStillToCome() throws IOException {
    String half = B.substring(0, 20);
    assertThat(relay(A + half, B.substring(20) + C))
        .containsExactly("read", "write " + A, "read", "write " + B + C);
  }

  @Test
  void aCommentIsNoEventToWaitFor() throws IOException {
    assertThat(relay(A + ":keep-alive\n\n", B)).containsExactly("read", "write " + A, "read", "write " + B);
  }

  @Test
  void crlfEventsGatherToo() throws IOException {
    String a = A.replace("\n", "\r\n");
    String b = B.replace("\n", "\r\n");
    List<String> log = relay(a + b);
    assertThat(log).hasSize(2).first().isEqualTo("read");
    assertThat(log.get(1)).isEqualTo("write " + A + B);
  }

  @Test
  void aReadLargerThanTheReadersFirstBufferStillLeavesInOneWrite() throws IOException {
    String big = "event: content_block_delta\ndata: {\"text\":\"" + "x".repeat(3 * SseReader.INITIAL_BUFFER) + "\"}\n\n";
    String burst = (A + B + C).repeat(10);
    assertThat(burst.length()).isGreaterThan(SseReader.INITIAL_BUFFER);

    assertThat(relay(burst + big, C)).containsExactly("read", "write " + burst + big, "read", "write " + C);
  }

  @Test
  void aCrLfSplitBetweenReadsIsOneLineEnd() throws IOException {
    List<String> log = relay("event: content_block_delta\rdata: {\"i\":1}\r\r", "\nevent: content_block_delta\rdata: {\"i\":2}\r\r");
    assertThat(log).containsExactly("read", "write " + A, "read", "write " + B);
  }

  @Test
  void encodingIsByteForByteTheApis() throws IOException {
    SseEvent event = new SseEvent("content_block_delta", "{\"text\":\"é✓ 🌊\"}\nsecond line");
    String expected = "event: content_block_delta\ndata: {\"text\":\"é✓ 🌊\"}\ndata: second line\n\n";
    assertThat(new String(SseWriter.encode(event), StandardCharsets.UTF_8)).isEqualTo(expected);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new SseWriter(out).write(event);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(expected);
  }

  @Test
  void aLongBurstIsWrittenThroughWithoutWaitingForTheFlush() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SseWriter writer = new SseWriter(out);
    SseEvent big = new SseEvent("content_block_delta", "x".repeat(SseWriter.WRITE_THROUGH));
    writer.write(big, false);
    assertThat(out.size()).isEqualTo(SseWriter.encode(big).length);
  }

  /** Logs each write, and the end with the bytes written with it. */
  private static final class EndingWrites extends OutputStream implements SseWriter.Ending {
    private final List<String> log;

    EndingWrites(List<String> log) {
      this.log = log;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      log.add("write " + new String(b, off, len, StandardCharsets.UTF_8));
    }

    @Override
    public void write(int b) {
      throw new UnsupportedOperationException("one byte at a time");
    }

    @Override
    public void flush() {
      log.add("flush");
    }

    @Override
    public void end(byte[] b, int off, int len) {
      log.add("end " + new String(b, off, len, StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
      log.add("close");
    }
  }

  @Test
  void theLastEventsLeaveWithTheEndInOneWrite() throws IOException {
    List<String> log = new ArrayList<>();
    SseWriter writer = new SseWriter(new EndingWrites(log));
    writer.write(new SseEvent("content_block_delta", "{\"i\":1}"), true);
    writer.write(new SseEvent("content_block_delta", "{\"i\":2}"), false);
    writer.write(new SseEvent("content_block_delta", "{\"i\":3}"), false);
    writer.end();
    assertThat(log).containsExactly("write " + A, "flush", "end " + B + C);
  }

  @Test
  void anEndWithNothingGatheredEndsWithNoBytes() throws IOException {
    List<String> log = new ArrayList<>();
    SseWriter writer = new SseWriter(new EndingWrites(log));
    writer.write(new SseEvent("content_block_delta", "{\"i\":1}"));
    writer.end();
    assertThat(log).containsExactly("write " + A, "flush", "end ");
  }

  @Test
  void overAStreamThatCannotEndWithItsLastBytesTheEndFlushesAndCloses() throws IOException {
    List<String> log = new ArrayList<>();
    SseWriter writer = new SseWriter(new Writes(log) {
      @Override
      public void flush() {
        log.add("flush");
      }

      @Override
      public void close() {
        log.add("close");
      }
    });
    writer.write(new SseEvent("content_block_delta", "{\"i\":1}"), false);
    writer.end();
    assertThat(log).containsExactly("write " + A, "flush", "close");
  }

  @Test
  void dataIsParsedOnceAndShared() {
    SseEvent event = new SseEvent("message_stop", "{\"type\":\"message_stop\"}");
    assertThat(event.json()).isSameAs(event.json());
    assertThat(event.json().path("type").asText()).isEqualTo("message_stop");
    assertThat(new SseEvent("ping", "not json").json()).isNull();
    assertThat(event).isEqualTo(new SseEvent("message_stop", "{\"type\":\"message_stop\"}"));
  }
}
