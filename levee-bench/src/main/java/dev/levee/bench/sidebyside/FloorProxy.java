package dev.levee.bench.sidebyside;

import dev.levee.anthropic.server.RequestGuard;
import dev.levee.anthropic.server.ServerLimits;
import dev.levee.anthropic.server.VirtualThreadServer;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;

/**
 * The floor under Levee's JSON path: a proxy with no pipeline, to tell what the server and the
 * I/O model cost from what Levee's seven stages cost ({@code SideBySide --floor <mode>}, {@code
 * ManyStreams --floor <mode>}; issue 11, docs/benchmarks.md sessions 8 and 10). Each request's body
 * is forwarded on a pooled blocking upstream connection and the answer's body returned with a fixed
 * head; an answer the upstream streams ({@code transfer-encoding: chunked}) is relayed as it
 * arrives, what one upstream read brought written and flushed at once. No checks, no resilience,
 * no headers passed on — a measuring device only, never a gateway.
 *
 * <ul>
 *   <li>{@code jetty}: Levee's own server ({@link VirtualThreadServer}: Jetty's selector, a virtual
 *       thread per request) with a bare handler;
 *   <li>{@code threads}: one virtual thread per connection reading requests in a blocking loop
 *       (the JDK's poller wakes it; no selector, no hand-off per request);
 *   <li>{@code codec}: that model with Jetty's HTTP/1.1 parser and generator ({@link CodecConnection});
 *   <li>{@code netty}, {@code netty-epoll}: Netty's event loops and HTTP/1.1 codec, a virtual
 *       thread per request ({@link NettyFloor}; NIO, or Netty's native epoll transport);
 *   <li>{@code levee-netty}: not a bare floor but Levee's whole handler tree behind Netty's epoll
 *       event loops ({@link LeveeOnNetty}), for what Levee itself would cost on Netty.
 * </ul>
 *
 * <p>Arguments: the mode and the upstream's base URL. Prints {@code LEVEE <base url>} once
 * listening (as {@link LeveeProcess} does); stops when its standard input closes.
 */
public final class FloorProxy {

  private static final byte[] HEAD = ("POST /v1/messages HTTP/1.1\r\nhost: upstream\r\ncontent-type: application/json\r\n"
      + "anthropic-version: 2023-06-01\r\nx-api-key: bench\r\ncontent-length: ").getBytes(StandardCharsets.ISO_8859_1);

  private static final byte[] STREAM_HEAD = ("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
      + "transfer-encoding: chunked\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

  /** Jetty's limits, wide enough for ten thousand streams at once (ManyStreams). */
  private static final ServerLimits STREAMS = new ServerLimits(20_000, SlowUpstream.ACCEPT_QUEUE,
      Duration.ofSeconds(10), 1_024, 20_000, 20_000, Duration.ofSeconds(2), 32L << 20, Duration.ofSeconds(60));

  private final InetSocketAddress upstream;
  private final ConcurrentLinkedQueue<Upstream> idle = new ConcurrentLinkedQueue<>();
  private final AtomicInteger idleCount = new AtomicInteger();

  /**
   * The most idle upstream connections kept, as the null hop's nginx ({@code keepalive 256}); the
   * rest are closed. Unbounded, the 9,900 of one {@code ManyStreams} round stayed open into the
   * next, and with the next round's direct connections took the upstream past this box's 20,000
   * open files: every floor stream of the second round failed (session 23).
   */
  static final int IDLE_UPSTREAMS = 256;

  private FloorProxy(InetSocketAddress upstream) {
    this.upstream = upstream;
  }

  /** The floors there are. */
  static final List<String> MODES = List.of("jetty", "threads", "codec", "netty", "netty-epoll", "levee-netty");

  /** Exits 2 with {@code usage} unless every comma-separated mode of {@code modes} (null: none) is one of {@link #MODES}. */
  static void checkModes(String modes, String usage) {
    if (modes != null) {
      for (String mode : modes.split(",", -1)) {
        BenchOptions.check(MODES.contains(mode), "no floor named '" + mode + "': " + String.join(", ", MODES), usage);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    String usage = "FloorProxy " + String.join("|", MODES) + " <upstream base URL, http://127.0.0.1:port>";
    BenchOptions.check(args.length == 2, "a mode and an upstream URL", usage);
    checkModes(args[0], usage);
    URI up = URI.create(args[1]);
    BenchOptions.check(up.getHost() != null && up.getPort() > 0, "not an upstream URL: " + args[1], usage);
    FloorProxy proxy = new FloorProxy(new InetSocketAddress(up.getHost(), up.getPort()));
    AutoCloseable server = switch (args[0]) {
      case "jetty" -> proxy.jetty()::stop;
      case "threads" -> proxy.threads();
      case "codec" -> proxy.codec();
      case "netty" -> NettyFloor.start(proxy::forward, false);
      case "netty-epoll" -> NettyFloor.start(proxy::forward, true);
      case "levee-netty" -> LeveeOnNetty.start(up);
      default -> throw new IllegalStateException(args[0]); // checkModes refused it
    };
    try (server) {
      while (System.in.read() >= 0) {
        // wait for the parent to close our input
      }
    }
  }

  /**
   * The {@code jetty} floor in this JVM, started (for a JMH benchmark beside Levee in the same
   * process): {@link VirtualThreadServer#port} tells its port; stop it when done.
   */
  static Server jettyIn(URI upstream) throws Exception {
    return new FloorProxy(new InetSocketAddress(upstream.getHost(), upstream.getPort())).jetty();
  }

  private Server jetty() throws Exception {
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofSeconds(30), "floor",
        new Handler.Abstract(Invocable.InvocationType.BLOCKING) {
          @Override
          public boolean handle(Request request, Response response, Callback callback) throws Exception {
            ByteBuffer in = Content.Source.asByteBuffer(request);
            byte[] body = new byte[in.remaining()];
            in.get(body);
            byte[] answer = forward(body, 0, body.length, new Relay() {
              @Override
              public void open() {
                response.setStatus(200);
                response.getHeaders().put("content-type", "text/event-stream");
              }

              @Override
              public void data(byte[] b, int length) throws IOException {
                try (Blocker.Callback written = Blocker.callback()) {
                  response.write(false, ByteBuffer.wrap(b, 0, length), written);
                  written.block();
                }
              }

              @Override
              public void end() throws IOException {
                try (Blocker.Callback written = Blocker.callback()) {
                  response.write(true, ByteBuffer.allocate(0), written);
                  written.block();
                }
              }
            });
            if (answer == null) {
              callback.succeeded();
              return true;
            }
            response.setStatus(200);
            response.getHeaders().put("content-type", contentType(answer));
            response.getHeaders().put("content-length", answer.length);
            try (Blocker.Callback written = Blocker.callback()) {
              response.write(true, ByteBuffer.wrap(answer), written);
              written.block();
            }
            callback.succeeded();
            return true;
          }
        }, STREAMS, RequestGuard.Lanes.NONE);
    server.start();
    announce(VirtualThreadServer.port(server));
    return server;
  }

  private AutoCloseable threads() throws IOException {
    return listen(this::serve);
  }

  private AutoCloseable codec() throws IOException {
    return listen(client -> new CodecConnection(client, this::forward).serve());
  }

  private static AutoCloseable listen(java.util.function.Consumer<SocketChannel> connection) throws IOException {
    ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0), 4096);
    Thread.ofPlatform().name("floor-accept").daemon().start(() -> {
      while (true) {
        try {
          SocketChannel client = listener.accept();
          client.setOption(StandardSocketOptions.TCP_NODELAY, true);
          Thread.ofVirtual().start(() -> connection.accept(client));
        } catch (IOException e) {
          return; // closed
        }
      }
    });
    announce(((InetSocketAddress) listener.getLocalAddress()).getPort());
    return listener;
  }

  static void announce(int port) {
    System.out.println("LEVEE http://127.0.0.1:" + port);
    System.out.flush();
  }

  /** One kept-alive client connection, request after request, on its own virtual thread. */
  private void serve(SocketChannel client) {
    try (client) {
      InputStream in = Channels.newInputStream(client);
      OutputStream out = Channels.newOutputStream(client);
      byte[] b = new byte[2048]; // as Jetty's request buffer in Levee; a request here is ~250 bytes
      int n = 0;
      while (true) {
        int end;
        while ((end = headEnd(b, n)) < 0) {
          int r = in.read(b, n, b.length - n);
          if (r < 0) {
            return;
          }
          n += r;
        }
        int length = contentLength(b, end);
        while (n < end + length) {
          int r = in.read(b, n, b.length - n);
          if (r < 0) {
            return;
          }
          n += r;
        }
        byte[] answer = forward(b, end, length, new Relay() {
          @Override
          public void open() throws IOException {
            out.write(STREAM_HEAD);
          }

          @Override
          public void data(byte[] d, int length) throws IOException {
            byte[] size = (Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
            byte[] chunk = Arrays.copyOf(size, size.length + length + 2);
            System.arraycopy(d, 0, chunk, size.length, length);
            chunk[chunk.length - 2] = '\r';
            chunk[chunk.length - 1] = '\n';
            out.write(chunk);
          }

          @Override
          public void end() throws IOException {
            out.write(LAST_CHUNK);
          }
        });
        if (answer == null) {
          int used = end + length;
          System.arraycopy(b, used, b, 0, n - used);
          n -= used;
          continue;
        }
        byte[] head = ("HTTP/1.1 200 OK\r\ncontent-type: " + contentType(answer) + "\r\ncontent-length: " + answer.length
            + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] whole = Arrays.copyOf(head, head.length + answer.length);
        System.arraycopy(answer, 0, whole, head.length, answer.length);
        out.write(whole);
        int used = end + length;
        System.arraycopy(b, used, b, 0, n - used);
        n -= used;
      }
    } catch (IOException e) {
      // the client left
    }
  }

  /** Where an answer the upstream streams goes, as it arrives (a 200 with {@code text/event-stream}). */
  interface Relay {
    /** Before the first data: the status and head. */
    void open() throws IOException;

    /** The data one upstream read brought ({@code length} bytes from 0 of {@code b}): write and flush it. */
    void data(byte[] b, int length) throws IOException;

    /** After the upstream's last chunk. */
    void end() throws IOException;
  }

  /**
   * Sends {@code length} bytes of {@code body} upstream in one write; returns the answer's body
   * when it has a {@code content-length}, or relays a chunked answer to {@code relay} as it
   * arrives and returns null.
   */
  byte[] forward(byte[] body, int from, int length, Relay relay) throws IOException {
    byte[] count = (length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    byte[] request = Arrays.copyOf(HEAD, HEAD.length + count.length + length);
    System.arraycopy(count, 0, request, HEAD.length, count.length);
    System.arraycopy(body, from, request, HEAD.length + count.length, length);
    Upstream u = idle.poll();
    if (u != null) {
      idleCount.decrementAndGet();
    }
    int n = 0;
    if (u != null) {
      try {
        u.out.write(request);
        n = u.read(0);
      } catch (IOException stale) { // the upstream closed it while idle (between scenarios): once more, on a fresh one
        u.channel.close();
        u = null;
      }
    }
    if (u == null) {
      u = new Upstream(upstream);
      u.out.write(request);
    }
    int end;
    while ((end = headEnd(u.buffer, n)) < 0) {
      n += u.read(n);
    }
    int answerLength = contentLength(u.buffer, end);
    if (answerLength < 0) {
      relayChunked(u, end, n, relay);
      release(u);
      return null;
    }
    while (n < end + answerLength) {
      n += u.read(n);
    }
    byte[] answer = Arrays.copyOfRange(u.buffer, end, end + answerLength);
    release(u);
    return answer;
  }

  /** Keeps {@code u} for the next request, or closes it when {@link #IDLE_UPSTREAMS} are idle already. */
  private void release(Upstream u) throws IOException {
    if (idleCount.incrementAndGet() <= IDLE_UPSTREAMS) {
      idle.offer(u);
    } else {
      idleCount.decrementAndGet();
      u.channel.close();
    }
  }

  /**
   * Relays a chunked answer whose head ends at {@code at} of the upstream's buffer ({@code n}
   * bytes read so far): the data of each upstream read, without its chunk framing, in one {@link
   * Relay#data} call. No trailers. Keeps no buffer of its own between reads (ten thousand streams
   * at once share a 256 MiB heap): what one read brings is copied out into a new array.
   */
  private static void relayChunked(Upstream u, int at, int n, Relay relay) throws IOException {
    relay.open();
    long left = 0; // data bytes left in the current chunk
    boolean crlf = false; // the CRLF after a chunk's data is next
    boolean last = false; // the last chunk's size line was read
    while (true) {
      byte[] b = u.buffer;
      byte[] data = new byte[n - at];
      int d = 0;
      while (at < n) {
        if (left > 0) {
          int k = (int) Math.min(left, n - at);
          System.arraycopy(b, at, data, d, k);
          d += k;
          at += k;
          left -= k;
          crlf = left == 0;
        } else if (crlf || last) {
          if (n - at < 2) {
            break;
          }
          at += 2;
          crlf = false;
          if (last) {
            if (d > 0) {
              relay.data(data, d);
            }
            relay.end();
            return;
          }
        } else {
          int lf = at;
          while (lf < n && b[lf] != '\n') {
            lf++;
          }
          if (lf == n) {
            break;
          }
          int size = 0;
          for (int i = at; i < lf && Character.digit(b[i], 16) >= 0; i++) {
            size = size * 16 + Character.digit(b[i], 16);
          }
          at = lf + 1;
          left = size;
          last = size == 0;
        }
      }
      if (d > 0) {
        relay.data(data, d);
      }
      System.arraycopy(b, at, b, 0, n - at);
      n -= at;
      at = 0;
      n += u.read(n);
    }
  }

  /** The fixed upstream's two answers: a whole SSE stream, or a JSON message. */
  static String contentType(byte[] answer) {
    return answer.length > 0 && answer[0] == 'e' ? "text/event-stream" : "application/json";
  }

  private static int headEnd(byte[] b, int n) {
    for (int i = 3; i < n; i++) {
      if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
        return i + 1;
      }
    }
    return -1;
  }

  private static int contentLength(byte[] b, int end) {
    String head = new String(b, 0, end, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
    int at = head.indexOf("content-length:");
    if (at < 0) {
      return -1; // chunked
    }
    return Integer.parseInt(head.substring(at + 15, head.indexOf('\r', at)).trim());
  }

  private static final class Upstream {
    final SocketChannel channel;
    final InputStream in;
    final OutputStream out;
    /** Grows when an answer does not fit; 2 KiB first, so ten thousand streams fit in the heap. */
    byte[] buffer = new byte[2048];

    Upstream(InetSocketAddress address) throws IOException {
      channel = SocketChannel.open(address);
      channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      in = Channels.newInputStream(channel);
      out = Channels.newOutputStream(channel);
    }

    int read(int at) throws IOException {
      if (at == buffer.length) {
        buffer = Arrays.copyOf(buffer, buffer.length * 2);
      }
      int r = in.read(buffer, at, buffer.length - at);
      if (r < 0) {
        throw new EOFException("upstream closed");
      }
      return r;
    }
  }
}
