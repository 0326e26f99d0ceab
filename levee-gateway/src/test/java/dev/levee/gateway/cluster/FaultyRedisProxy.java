package dev.levee.gateway.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of the real Redis at 127.0.0.1:6379 that misbehaves on demand, for tests of
 * the link: {@link #cut()} drops every connection and refuses new ones until {@link #restore()};
 * {@link #delayReplies} holds the next few replies (one read from Redis each) for a while, as a
 * stalled host would. Threads are virtual; {@link #close()} ends them all.
 */
final class FaultyRedisProxy implements AutoCloseable {

  private final ServerSocket server;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final AtomicInteger repliesToDelay = new AtomicInteger();
  private volatile long delayMillis;
  private volatile boolean refusing;
  private volatile boolean closed;

  FaultyRedisProxy() throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().start(this::accept);
  }

  /** The URI replicas connect to. */
  String uri() {
    return "redis://127.0.0.1:" + server.getLocalPort();
  }

  /** Closes every connection and refuses new ones until {@link #restore()}. */
  void cut() {
    refusing = true;
    sockets.forEach(FaultyRedisProxy::quietlyClose);
    sockets.clear();
  }

  void restore() {
    refusing = false;
  }

  /** Holds each of the next {@code replies} replies from Redis for {@code delay} before passing it on. */
  void delayReplies(int replies, Duration delay) {
    delayMillis = delay.toMillis();
    repliesToDelay.set(replies);
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        if (refusing) {
          client.close();
          continue;
        }
        Socket redis = new Socket(InetAddress.getLoopbackAddress(), 6379);
        client.setTcpNoDelay(true); // as Lettuce and Redis do: no Nagle wait behind a held reply
        redis.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(redis);
        Thread.ofVirtual().start(() -> pump(client, redis, false));
        Thread.ofVirtual().start(() -> pump(redis, client, true));
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to, boolean replies) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) > 0) {
        if (replies && repliesToDelay.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
          Thread.sleep(delayMillis); // the injected fault: a stalled reply (the proxy's thread, not the test's)
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // the other side closed, or cut()
    } finally {
      quietlyClose(from);
      quietlyClose(to);
    }
  }

  private static void quietlyClose(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    closed = true;
    cut();
    quietlyClose(server);
  }

  private static void quietlyClose(ServerSocket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }
}
