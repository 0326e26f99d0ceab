package dev.levee.anthropic.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.ManagedSelector;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * A socket endpoint that remembers when its socket last took a byte of a write: the progress
 * {@link SendDeadline} measures. Jetty's own idle clock ({@code getIdleFor()}) will not do: every
 * read restarts it, and a client that never reads but keeps sending (empty lines, which {@link
 * DisconnectWatch} reads and tolerates) would look busy forever.
 *
 * <p>One clock read and one volatile store per flush that wrote; nothing else. Thread-safe.
 */
final class WriteTimedEndPoint extends SocketChannelEndPoint {

  private final LongSupplier nanos;
  private volatile long lastWrite;

  /** @param nanos the monotonic clock, in nanoseconds (the sweep's) */
  WriteTimedEndPoint(SocketChannel channel, ManagedSelector selector, SelectionKey key, Scheduler scheduler,
      LongSupplier nanos) {
    super(channel, selector, key, scheduler);
    this.nanos = nanos;
    this.lastWrite = nanos.getAsLong();
  }

  /** When the socket last took at least one byte of a write, in nanoseconds of the clock given; until then, when it was accepted. */
  long lastWrite() {
    return lastWrite;
  }

  @Override
  public boolean flush(ByteBuffer... buffers) throws IOException {
    long before = remaining(buffers);
    boolean flushed = super.flush(buffers);
    if (remaining(buffers) < before) {
      lastWrite = nanos.getAsLong();
    }
    return flushed;
  }

  private static long remaining(ByteBuffer[] buffers) {
    long remaining = 0;
    for (ByteBuffer buffer : buffers) {
      remaining += buffer == null ? 0 : buffer.remaining();
    }
    return remaining;
  }
}
