package dev.levee.anthropic.server;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * A Jetty endpoint over a blocking socket, read by a virtual thread instead of a selector
 * ({@link VirtualThreadConnector}). When a reader asks to be told of input ({@link
 * #needsFillInterest}), a virtual thread blocks in {@code read} (the JDK's poller wakes it), keeps
 * what it read as pending input, and runs the reader's callback itself — for an HTTP/1.1
 * connection, Jetty's whole request handling, handler included. When that callback ends the
 * exchange and asks for the next request ({@link #requestWanted}), the same thread reads again
 * once it returns: a kept-alive connection is served by one virtual thread, request after
 * request, with no selector to re-arm or wake and no new thread per request (issue 11: Jetty's
 * selector model cost ~1.4× a thread per connection's CPU per request). Any other interest — a
 * handler waiting for more of its body, a {@link DisconnectWatch} — gets a thread of its own when
 * no thread is reading, so it is never left waiting on a thread that is busy elsewhere.
 *
 * <p>Writes block the writing thread until the kernel took every byte (a slow client holds back
 * the thread that streams to it, as it should). {@link #fill} returns pending input first, then
 * what the socket holds already ({@code available()}), and never blocks.
 */
final class VirtualThreadEndPoint extends AbstractEndPoint {

  /**
   * Bytes a blocking read for a request takes at most (the rest of a longer request is read by
   * {@link #fill} without blocking): the head and body of a typical API request.
   */
  static final int REQUEST_READ_BYTES = 1024;

  /**
   * Bytes a blocking read for any other interest takes at most: a {@link DisconnectWatch} waits
   * for the end of input through a whole stream, ten thousand of them at once, and needs none.
   */
  static final int OTHER_READ_BYTES = 64;

  private final SocketChannel channel;
  private final InputStream readable; // only for available(): the bytes the socket holds now
  private final SocketAddress local;
  private final SocketAddress remote;
  private final Runnable closed;
  private final ReentrantLock lock = new ReentrantLock();
  private ByteBuffer pending; // guarded by lock: read but not yet filled, in flush mode
  private boolean forRequest; // guarded by lock: the interest being registered is the connection's, for a request
  private int readBytes; // guarded by lock: how much the reading thread's next blocking read takes
  private boolean ended; // guarded by lock: the client's end of stream (or a reset) was read
  private boolean reading; // guarded by lock: a thread is reading, or about to run the callback with what it read
  private Thread calling; // guarded by lock: the thread running a fill-interest callback it read for
  private Thread returning; // guarded by lock: that thread asked to read again once its callback returns
  private boolean again; // guarded by lock: so it will

  VirtualThreadEndPoint(SocketChannel channel, Scheduler scheduler, Runnable closed)
      throws IOException {
    super(scheduler);
    this.channel = channel;
    this.readable = channel.socket().getInputStream();
    this.local = channel.getLocalAddress();
    this.remote = channel.getRemoteAddress();
    this.closed = closed;
  }

  /**
   * Says that the connection is about to register its interest in a request (its first, or the
   * next on a kept-alive connection). When the thread calling this runs a fill-interest callback
   * this endpoint started, it returns at once after registering (Jetty's HTTP/1.1 connection does):
   * the thread then reads again itself instead of handing the read to another.
   */
  void requestWanted() {
    lock.lock();
    try {
      forRequest = true;
      if (calling == Thread.currentThread()) {
        returning = calling;
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  protected void needsFillInterest() {
    lock.lock();
    try {
      Thread self = Thread.currentThread();
      boolean mine = returning == self;
      returning = null;
      int bytes = forRequest ? REQUEST_READ_BYTES : OTHER_READ_BYTES;
      forRequest = false;
      if (reading) {
        return; // the reading thread runs the callback when input comes
      }
      reading = true;
      readBytes = bytes;
      if (mine) {
        again = true; // this thread reads when its callback returns
        return;
      }
    } finally {
      lock.unlock();
    }
    Thread.ofVirtual().start(this::readAndCall);
  }

  /** The reading thread: waits for input, runs the callback, and again while the callback asks for it. */
  private void readAndCall() {
    do {
      if (!awaitInput()) {
        lock.lock();
        reading = false;
        lock.unlock();
        return; // closed: Jetty fails the interest itself
      }
      lock.lock();
      try {
        reading = false;
        calling = Thread.currentThread();
      } finally {
        lock.unlock();
      }
      getFillInterest().fillable(); // false when no one waits now: the input stays pending for fill()
    } while (afterCall());
  }

  /** After the callback: whether this thread reads again (the reading role was handed back to it). */
  private boolean afterCall() {
    lock.lock();
    try {
      calling = null;
      returning = null;
      boolean more = again;
      again = false;
      return more;
    } finally {
      lock.unlock();
    }
  }

  /** Blocks until input is pending or the client's end was read; false once the endpoint closed. */
  private boolean awaitInput() {
    ByteBuffer bytes;
    lock.lock();
    try {
      if (pending != null || ended) {
        return true;
      }
      bytes = ByteBuffer.allocate(readBytes); // heap: held only while this thread waits
    } finally {
      lock.unlock();
    }
    int read;
    try {
      read = channel.read(bytes);
      bytes.flip();
    } catch (IOException e) {
      read = -1; // reset: Jetty reads it as the end of input, as it does from a selector's endpoint
    }
    lock.lock();
    try {
      if (read > 0 && isOpen()) {
        pending = bytes;
        return true;
      }
      ended = true;
      return isOpen();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int fill(ByteBuffer buffer) throws IOException {
    if (isInputShutdown()) {
      return -1;
    }
    int filled;
    lock.lock();
    try {
      if (pending != null) {
        filled = BufferUtil.append(buffer, pending);
        if (!pending.hasRemaining()) {
          pending = null;
        }
      } else if (ended) {
        filled = -1;
      } else if (reading || readable.available() <= 0) {
        return 0; // nothing here yet; a reading thread does not share the socket with this one
      } else {
        int at = BufferUtil.flipToFill(buffer);
        try {
          filled = channel.read(buffer); // the socket holds bytes: does not block
        } catch (IOException e) {
          filled = -1;
        } finally {
          BufferUtil.flipToFlush(buffer, at);
        }
      }
    } finally {
      lock.unlock();
    }
    if (filled > 0) {
      notIdle();
    } else if (filled < 0) {
      shutdownInput();
    }
    return filled;
  }

  @Override
  public boolean flush(ByteBuffer... buffers) throws IOException {
    long written = 0;
    try {
      while (!BufferUtil.isEmpty(buffers)) {
        written += channel.write(buffers); // blocking: returns once the kernel took every byte
      }
    } catch (IOException e) {
      throw new EofException(e);
    }
    if (written > 0) {
      notIdle();
    }
    return true;
  }

  @Override
  protected void onIncompleteFlush() {
    throw new IllegalStateException("a blocking flush is never incomplete");
  }

  @Override
  protected void doShutdownOutput() {
    try {
      channel.shutdownOutput();
    } catch (IOException e) {
      // closed already
    }
  }

  @Override
  protected void doClose() {
    try {
      channel.close(); // a thread blocked in read wakes with an exception
    } catch (IOException e) {
      // closed already
    }
    super.doClose();
  }

  @Override
  public void onClose(Throwable cause) {
    try {
      if (getConnection() != null) {
        getConnection().onClose(cause);
      }
      closed.run();
    } finally {
      super.onClose(cause);
    }
  }

  @Override
  public Object getTransport() {
    return channel;
  }

  @Override
  public SocketAddress getLocalSocketAddress() {
    return local;
  }

  @Override
  public SocketAddress getRemoteSocketAddress() {
    return remote;
  }
}
