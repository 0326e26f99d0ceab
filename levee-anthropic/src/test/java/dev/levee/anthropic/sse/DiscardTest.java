package dev.levee.anthropic.sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link SseWriter#discard()}: a stream being aborted drops what it gathered, so nothing gathered
 * (a half-gathered event included) follows the failure, and it cannot then be ended as if finished.
 */
class DiscardTest {

  private static final SseEvent DELTA = new SseEvent("content_block_delta", "{\"i\":1}");

  /** A response body whose end is recorded, as an HTTP body's last chunk would be. */
  private static final class Body extends ByteArrayOutputStream implements SseWriter.Ending {
    boolean ended;

    @Override
    public void end(byte[] b, int off, int len) {
      write(b, off, len);
      ended = true;
    }

    String text() {
      return toString(StandardCharsets.UTF_8);
    }
  }

  @Test
  void gatheredEventsAreDroppedUnwritten() throws IOException {
    Body body = new Body();
    SseWriter out = new SseWriter(body);
    out.write(DELTA, true);
    String flushed = body.text();

    out.write(DELTA, false); // gathered, more seemed at hand
    out.discard();

    assertThat(body.text()).as("only what had been flushed").isEqualTo(flushed);
    assertThat(body.ended).isFalse();
  }

  @Test
  void itIsIdempotent() {
    SseWriter out = new SseWriter(new Body());

    assertThatCode(() -> {
      out.write(DELTA, false);
      out.discard();
      out.discard();
    }).doesNotThrowAnyException();
  }

  @Test
  void nothingIsWrittenAndNoEndGoesOutAfterIt() throws IOException {
    Body body = new Body();
    SseWriter out = new SseWriter(body);
    out.write(DELTA, false);
    out.discard();

    assertThatThrownBy(() -> out.write(DELTA, true)).isInstanceOf(IOException.class);
    assertThatThrownBy(out::end).as("an aborted stream must not look finished").isInstanceOf(IOException.class);
    assertThat(body.text()).isEmpty();
    assertThat(body.ended).isFalse();
  }
}
