package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.io.ByteArrayEndPoint;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * Issue 9 item 10: under keep-alive load the emulator (and the gateway, which shares this watch)
 * answered well-formed requests with "400 No URI" / "Illegal character". The watch decided to read
 * while its exchange was open, then read after {@link DisconnectWatch#close()}: the first bytes
 * of the client's next request. The wake-ups that lead there are routine — the readability
 * interest stays on the selector key after close, so the next request's arrival wakes the next
 * exchange's watch on a pool thread that runs late. Driven here on an in-memory endpoint whose
 * {@code fill} can be held, standing for a reader thread descheduled just before its read.
 */
class DisconnectWatchRegressionTest {

  private static final String NEXT_REQUEST = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-length: 2\r\n\r\n{}";

  @Test
  void aWakeUpDecidedBeforeCloseNeverReadsTheNextRequest() throws Exception {
    HeldEndPoint endPoint = new HeldEndPoint();
    AtomicBoolean gone = new AtomicBoolean();
    DisconnectWatch watch = DisconnectWatch.start(endPoint, () -> gone.set(true));
    endPoint.holdNextFill();
    Thread lateWakeUp = Thread.ofPlatform().start(() -> endPoint.getFillInterest().fillable());
    assertThat(endPoint.fillEntered.await(10, TimeUnit.SECONDS)).isTrue();

    Thread exchangeEnds = Thread.ofPlatform().start(watch::close);
    Thread.State state = awaitBlockedOrDone(exchangeEnds);
    if (state == Thread.State.TERMINATED) {
      endPoint.addInput(NEXT_REQUEST); // the answer went out; the client sends its next request at once
    }
    endPoint.release();
    lateWakeUp.join(10_000);
    exchangeEnds.join(10_000);
    if (state != Thread.State.TERMINATED) {
      endPoint.addInput(NEXT_REQUEST);
    }

    assertThat(readAll(endPoint)).as("what Jetty reads for the next request").isEqualTo(NEXT_REQUEST);
    assertThat(gone).isFalse();
    assertThat(endPoint.getFillInterest().isInterested()).as("an interest left behind makes Jetty abort").isFalse();
  }

  @Test
  void aWakeUpWithNothingToReadKeepsWatching() {
    HeldEndPoint endPoint = new HeldEndPoint();
    AtomicBoolean gone = new AtomicBoolean();
    DisconnectWatch watch = DisconnectWatch.start(endPoint, () -> gone.set(true));

    endPoint.getFillInterest().fillable(); // spurious or late: nothing to read
    endPoint.addInputEOF(); // then the client really leaves
    endPoint.getFillInterest().fillable();

    assertThat(gone).isTrue();
    assertThat(watch.clientGone()).isTrue();
  }

  @Test
  void closeWithdrawsOnlyItsOwnInterest() {
    HeldEndPoint endPoint = new HeldEndPoint();
    AtomicReference<Throwable> othersFailure = new AtomicReference<>();
    endPoint.fillInterested(Callback.from(() -> { }, othersFailure::set));
    DisconnectWatch watch = DisconnectWatch.start(endPoint, () -> { });

    watch.close();

    assertThat(othersFailure.get()).isNull();
    assertThat(endPoint.getFillInterest().isInterested()).isTrue();
  }

  @Test
  void endOfStreamMidExchangeIsAClientGone() {
    HeldEndPoint endPoint = new HeldEndPoint();
    AtomicBoolean gone = new AtomicBoolean();
    DisconnectWatch.start(endPoint, () -> gone.set(true));

    endPoint.addInputEOF();
    endPoint.getFillInterest().fillable();

    assertThat(gone).isTrue();
  }

  /** Waits until {@code thread} is parked (on the watch's lock) or finished; never on a clock. */
  private static Thread.State awaitBlockedOrDone(Thread thread) {
    while (true) {
      Thread.State state = thread.getState();
      if (state == Thread.State.WAITING || state == Thread.State.BLOCKED || state == Thread.State.TERMINATED) {
        return state;
      }
      Thread.onSpinWait();
    }
  }

  private static String readAll(ByteArrayEndPoint endPoint) throws IOException {
    ByteBuffer buffer = BufferUtil.allocate(1024);
    while (endPoint.fill(buffer) > 0) {
      // keep reading
    }
    return BufferUtil.toString(buffer, StandardCharsets.UTF_8);
  }

  /** An in-memory connection: readability is signalled by the test; one fill can be held. */
  private static final class HeldEndPoint extends ByteArrayEndPoint {
    final CountDownLatch fillEntered = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile boolean hold;

    void holdNextFill() {
      hold = true;
    }

    void release() {
      released.countDown();
    }

    @Override
    protected void needsFillInterest() {
      // the test calls fillable() itself, as the selector would
    }

    @Override
    public int fill(ByteBuffer buffer) throws IOException {
      if (hold) {
        hold = false;
        fillEntered.countDown();
        try {
          released.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return super.fill(buffer);
    }
  }
}
