package dev.levee.anthropic.upstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Waits for upstream connections to become readable without a thread per wait: one platform
 * thread ({@code levee-readability}) selects over every connection waited on. A slow stream waits
 * between its deltas most of its life, and a virtual thread parked in that read keeps its frozen
 * stack, ~7.3 KB a stream: 72 MB of a 256 MiB heap at 10,000 streams (issue 11). A stream that
 * waits here instead has no thread at all until bytes arrive.
 *
 * <p>A {@link Wait} ends once: when its channel is readable (bytes, or the end of the stream) —
 * its key cancelled and flushed from the selector and the channel back in blocking mode before
 * {@code ready} runs — or when {@link Wait#end()} is called, which the connection's close does
 * (closing a channel cancels its key without a select event: a stalled stream closed by the
 * watchdog, or one whose client left, would wait forever otherwise). {@code ready} runs on the
 * thread that ended the wait and must only hand off (start a thread). Thread-safe.
 */
final class Readability {

  private static final class Shared {
    static final Readability INSTANCE = new Readability();
  }

  private final Selector selector;
  private final Queue<Wait> toRegister = new ConcurrentLinkedQueue<>();

  private Readability() {
    try {
      selector = Selector.open();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread.ofPlatform().daemon().name("levee-readability").start(this::run);
  }

  /** The JVM's one selector thread for these waits, started on first use. */
  static Readability shared() {
    return Shared.INSTANCE;
  }

  /**
   * A wait for {@code channel} to become readable, not started: publish it where the channel's
   * close will {@link Wait#end()} it, then {@link Wait#start()} it.
   */
  Wait waitFor(SocketChannel channel, Runnable ready) {
    return new Wait(channel, ready);
  }

  private void run() {
    List<Wait> ready = new ArrayList<>();
    while (true) {
      try {
        selector.select();
        Wait next;
        while ((next = toRegister.poll()) != null) {
          try {
            next.channel.register(selector, SelectionKey.OP_READ, next);
          } catch (ClosedChannelException e) {
            next.end(); // closed before it was registered: its close ended it (or ends it now)
          }
        }
        for (SelectionKey key : selector.selectedKeys()) {
          key.cancel();
          ready.add((Wait) key.attachment());
        }
        selector.selectedKeys().clear();
        if (!ready.isEmpty()) {
          selector.selectNow(); // deregisters the cancelled keys: blocking mode can come back
          for (Wait wait : ready) {
            try {
              wait.readable();
            } catch (RuntimeException | Error e) {
              // a thread that could not start (out of memory): the other waits must still end
            }
          }
          ready.clear();
        }
      } catch (IOException | RuntimeException e) {
        ready.clear(); // a selector failure is a JDK bug; keep serving the other waits
      }
    }
  }

  /** One connection's wait. */
  final class Wait {
    private final SocketChannel channel;
    private final Runnable ready;
    private final AtomicBoolean ended = new AtomicBoolean();

    private Wait(SocketChannel channel, Runnable ready) {
      this.channel = channel;
      this.ready = ready;
    }

    /**
     * Puts the channel in non-blocking mode and starts waiting. The caller must not touch the
     * channel until {@code ready} has run.
     *
     * @throws IOException when the channel cannot be made non-blocking (it is closed): nothing waits
     */
    void start() throws IOException {
      channel.configureBlocking(false);
      toRegister.add(this);
      selector.wakeup();
    }

    /** Ends the wait now, if it has not ended (the channel is closing): {@code ready} runs here. */
    void end() {
      if (ended.compareAndSet(false, true)) {
        selector.wakeup(); // the closed channel's key is flushed, its file descriptor released
        ready.run();
      }
    }

    private void readable() {
      if (ended.compareAndSet(false, true)) {
        try {
          channel.configureBlocking(true);
        } catch (IOException e) {
          // closed meanwhile: the read that follows fails as a closed connection's does
        }
        ready.run();
      }
    }
  }
}
