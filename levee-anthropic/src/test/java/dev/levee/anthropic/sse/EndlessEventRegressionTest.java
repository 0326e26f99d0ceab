package dev.levee.anthropic.sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A hostile-input trial: an upstream (or a proxy before it, or a fault) that sends one event without
 * end — bytes and never a blank line — made the reader grow its buffer (or, line after line, the
 * event's data) without limit, until the heap ran out for every stream and tenant. Now one event
 * holds at most {@link SseReader#MAX_EVENT_BYTES}; past it the read fails with {@link
 * SseEventTooLargeException}, having taken in at most the bound plus one burst buffer.
 *
 * <p>No timeout: the endless body counts what it hands out and, should the reader read on past
 * what the bound allows, fails the read itself (so the old reader failed here with "read on past
 * the bound" instead of running out of memory).
 */
class EndlessEventRegressionTest {

  private static final long ALLOWED = SseReader.MAX_EVENT_BYTES + SseReader.BURST_BUFFER;

  @Test
  void anEndlessDataLineFailsOnceItHoldsTheBound() throws IOException {
    Endless body = new Endless("event: ping\ndata: {\"type\":\"ping\"}\n\nevent: content_block_delta\ndata: ", "x");
    SseReader reader = new SseReader(body);

    assertThat(reader.next().event()).isEqualTo("ping");
    assertThatThrownBy(reader::next).isInstanceOf(SseEventTooLargeException.class)
        .hasMessageContaining("33554432 bytes");
    assertThat(body.consumed).isGreaterThan(SseReader.MAX_EVENT_BYTES).isLessThanOrEqualTo(ALLOWED);
    assertThat(reader.bufferCapacity()).isLessThanOrEqualTo(SseReader.MAX_EVENT_BYTES);
  }

  @Test
  void endlessDataLinesWithoutABlankLineFailOnceTheirDataHoldsTheBound() throws IOException {
    Endless body = new Endless("event: content_block_delta\n", "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n");
    SseReader reader = new SseReader(body);

    assertThatThrownBy(reader::next).isInstanceOf(SseEventTooLargeException.class);
    assertThat(body.consumed).isGreaterThan(SseReader.MAX_EVENT_BYTES).isLessThanOrEqualTo(ALLOWED);
  }

  @Test
  void readyTakesInNoMoreThanTheBoundAndLeavesTheFailureToNext() throws IOException {
    Endless body = new Endless("event: content_block_start\ndata: ", "y");
    SseReader reader = new SseReader(body);

    assertThat(reader.ready()).isFalse(); // the relay then calls next(), which reports the failure
    assertThat(body.consumed).isLessThanOrEqualTo(ALLOWED);
    assertThatThrownBy(reader::next).isInstanceOf(SseEventTooLargeException.class);
    assertThat(body.consumed).isLessThanOrEqualTo(ALLOWED);
  }

  @Test
  void anEventJustUnderTheBoundIsStillReadWhole() throws IOException {
    String data = "{\"type\":\"content_block_start\",\"text\":\"" + "z".repeat(SseReader.MAX_EVENT_BYTES - 1024) + "\"}";
    String stream = "event: content_block_start\ndata: " + data + "\n\nevent: ping\ndata: {}\n\n";
    SseReader reader = new SseReader(new Arrivals(stream));

    SseEvent big = reader.next();
    assertThat(big.event()).isEqualTo("content_block_start");
    assertThat(big.data().length()).isEqualTo(data.length());
    assertThat(reader.next().event()).isEqualTo("ping");
    assertThat(reader.next()).isNull();
  }

  /**
   * A body that sends {@code head}, then {@code unit} forever, always with a burst's worth at hand
   * ({@code available()}), like a fast upstream; fails a read past {@link #ALLOWED} bytes.
   */
  private static final class Endless extends InputStream {
    private final byte[] head;
    private final byte[] unit;
    long consumed;

    Endless(String head, String unit) {
      this.head = head.getBytes(StandardCharsets.UTF_8);
      this.unit = unit.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (consumed >= ALLOWED) {
        throw new IOException("the reader read on past the bound: " + consumed + " bytes of one event");
      }
      int n = (int) Math.min(len, ALLOWED - consumed);
      for (int i = 0; i < n; i++) {
        long at = consumed + i;
        b[off + i] = at < head.length ? head[(int) at] : unit[(int) ((at - head.length) % unit.length)];
      }
      consumed += n;
      return n;
    }

    @Override
    public int available() {
      return 64 * 1024;
    }
  }
}
