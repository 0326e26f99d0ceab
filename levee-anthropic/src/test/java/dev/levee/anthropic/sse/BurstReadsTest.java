package dev.levee.anthropic.sse;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Issue "close to the null hop": events that arrived together were taken in reads of at most
 * {@link SseReader#INITIAL_BUFFER} bytes, one pass through the upstream body's read path each. The
 * reader now grows its buffer for a burst (up to {@link SseReader#BURST_BUFFER}) and goes back to
 * a small one before a read that waits.
 */
class BurstReadsTest {

  private static String delta(int i) {
    return "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
        + "\"text_delta\",\"text\":\"word " + i + " of a burst of events that came in one read\"}}\n\n";
  }

  @Test
  void aBurstIsTakenInAFewReadsAndTheBufferShrinksBeforeTheNextWait() throws Exception {
    StringBuilder burst = new StringBuilder();
    for (int i = 0; i < 60; i++) {
      burst.append(delta(i));
    }
    String ping = "event: ping\ndata: {\"type\":\"ping\"}\n\n";
    Arrivals in = new Arrivals(burst.toString(), ping);
    SseReader reader = new SseReader(in);

    for (int i = 0; i < 60; i++) {
      assertThat(reader.next().data()).contains("word " + i + " of");
    }
    assertThat(burst.length()).isGreaterThan(8 * 1024);
    assertThat(in.reads).as("reads of a %d-byte burst: %s", burst.length(), in.reads).hasSizeLessThanOrEqualTo(9);
    assertThat(in.reads.stream().mapToInt(Integer::intValue).max().orElseThrow()).isGreaterThan(4096);
    assertThat(reader.bufferCapacity()).isLessThanOrEqualTo(SseReader.BURST_BUFFER);

    assertThat(reader.next().event()).isEqualTo("ping"); // read after a wait with nothing kept
    assertThat(reader.bufferCapacity()).isEqualTo(SseReader.INITIAL_BUFFER);
    assertThat(reader.next()).isNull();
  }

  @Test
  void readyTakesWhatIsAtHandInOneRead() {
    StringBuilder burst = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      burst.append(delta(i));
    }
    Arrivals in = new Arrivals(burst.toString());
    SseReader reader = new SseReader(in);

    assertThat(reader.ready()).isTrue();
    assertThat(in.reads).as("one read of everything at hand: %s", in.reads).containsExactly(burst.length());
  }

  @Test
  void aPartialEventKeptAcrossAWaitKeepsASmallBuffer() throws Exception {
    StringBuilder burst = new StringBuilder();
    for (int i = 0; i < 60; i++) {
      burst.append(delta(i));
    }
    String next = delta(60);
    burst.append(next, 0, 40); // the next event's start came with the burst; its rest comes later
    SseReader reader = new SseReader(new Arrivals(burst.toString(), next.substring(40)));

    for (int i = 0; i < 60; i++) {
      reader.next();
    }
    assertThat(reader.next().data()).contains("word 60 of");
    assertThat(reader.bufferCapacity()).as("waited for the rest holding 40 bytes")
        .isEqualTo(SseReader.INITIAL_BUFFER);
  }
}
