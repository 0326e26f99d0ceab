package dev.levee.anthropic.sse;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Issue 11 (many slow streams in {@code -Xmx256m}): a reader whose buffer grew for one large event
 * kept it for the rest of the stream, and every idle stream held at least 1 KiB here. Now the
 * buffer starts small and goes back to {@link SseReader#INITIAL_BUFFER} before a read that waits
 * with nothing kept.
 */
class IdleReaderBufferRegressionTest {

  @Test
  void aBufferGrownForALargeEventShrinksBeforeTheNextWait() throws Exception {
    String large = "event: message_start\ndata: {\"text\":\"" + "x".repeat(4 * SseReader.INITIAL_BUFFER) + "\"}\n\n";
    String small = "event: ping\ndata: {\"type\":\"ping\"}\n\n";
    SseReader reader = new SseReader(new Arrivals(small, large, small, small));

    assertThat(reader.bufferCapacity()).isEqualTo(SseReader.INITIAL_BUFFER);
    assertThat(reader.next().event()).isEqualTo("ping");
    SseEvent big = reader.next();
    assertThat(big.event()).isEqualTo("message_start");
    assertThat(big.data()).hasSize(large.length() - "event: message_start\ndata: \n\n".length());
    assertThat(reader.bufferCapacity()).isGreaterThan(SseReader.INITIAL_BUFFER);

    assertThat(reader.next().event()).isEqualTo("ping"); // read after a wait with nothing kept
    assertThat(reader.bufferCapacity()).isEqualTo(SseReader.INITIAL_BUFFER);
    assertThat(reader.next().data()).isEqualTo("{\"type\":\"ping\"}");
    assertThat(reader.next()).isNull();
  }
}
