package dev.levee.bench.sidebyside;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;

/**
 * Many concurrent streaming clients on one thread: {@code n} non-blocking loopback connections,
 * each sending one streamed request and reading its answer (HTTP/1.1, chunked or not) through
 * one selector. Every stream is checked as it arrives — its deltas counted, its {@code
 * message_stop} and the absence of {@code event: error} noted — without keeping its bytes, so
 * ten thousand streams cost the client a few hundred bytes each. Not thread-safe; one run per
 * instance.
 */
final class StreamCrowd {

  /**
   * What one run saw.
   *
   * @param streams streams started
   * @param complete streams with status 200, every delta, {@code message_stop}, no error event
   * @param errorEvents streams with an {@code event: error}
   * @param failed connections that failed (refused, reset, cut short, non-200) or did not end in time
   * @param wallSeconds from the first connect to the end of the last stream
   * @param allConnectedSeconds from the first connect until every connection was established
   * @param allAnsweredSeconds from the first connect until every answer's head had arrived
   * @param p50Seconds median time of one stream, from its connect to its end
   * @param maxSeconds the longest stream
   */
  record Result(int streams, int complete, int errorEvents, int failed, double wallSeconds,
      double allConnectedSeconds, double allAnsweredSeconds, double p50Seconds, double maxSeconds) {}

  private static final byte[] TERMINATOR = {'\r', '\n', '\r', '\n'};

  private final InetSocketAddress address;
  private final byte[] request;
  private final int deltas;
  /** The data of the first {@code event: error} seen, for the report. */
  static final java.util.concurrent.atomic.AtomicReference<String> firstError = new java.util.concurrent.atomic.AtomicReference<>();

  StreamCrowd(URI base, byte[] body, int deltas) {
    this.address = new InetSocketAddress(base.getHost(), base.getPort());
    this.request = LoopbackClient.requestBytes(base, body);
    this.deltas = deltas;
  }

  /** Opens {@code n} streams at once and waits until each has ended, or until {@code limit} has passed. */
  Result run(int n, Duration limit) throws IOException {
    return run(n, 0, limit);
  }

  /**
   * Opens {@code n} streams, {@code perSecond} new connections a second (0: all at once), and
   * waits until each has ended, or until {@code limit} has passed. A fixed rate keeps the
   * server's listen queue from overflowing: an overflow drops the SYN and the kernel retries it
   * after 1 s, 3 s, 7 s, which then measures the backlog, not the server.
   */
  Result run(int n, int perSecond, Duration limit) throws IOException {
    Stream[] streams = new Stream[n];
    ByteBuffer read = ByteBuffer.allocateDirect(64 * 1024);
    long start = System.nanoTime();
    long deadline = start + limit.toNanos();
    int open = 0;
    try (Selector selector = Selector.open()) {
      for (int i = 0; i < n; i++) {
        long due = perSecond > 0 ? start + i * 1_000_000_000L / perSecond : start;
        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
          selector.select(Math.max(1, wait / 1_000_000));
          open -= handle(selector, read);
        }
        Stream s = new Stream();
        streams[i] = s;
        s.began = System.nanoTime();
        try {
          s.channel = SocketChannel.open();
          s.channel.configureBlocking(false);
          s.channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
          if (s.channel.connect(address)) {
            s.connected = System.nanoTime();
            s.channel.register(selector, SelectionKey.OP_WRITE, s);
          } else {
            s.channel.register(selector, SelectionKey.OP_CONNECT, s);
          }
          open++;
        } catch (IOException e) {
          s.fail();
        }
        if ((i & 255) == 255) {
          selector.selectNow(); // let early answers flow while the rest connect
          open -= handle(selector, read);
        }
      }
      while (open > 0 && System.nanoTime() < deadline) {
        selector.select(Math.max(1, Math.min(1000, (deadline - System.nanoTime()) / 1_000_000)));
        open -= handle(selector, read);
      }
      for (SelectionKey key : selector.keys()) {
        ((Stream) key.attachment()).fail(); // not done in time
      }
    }
    return summarise(streams, start);
  }

  /** Handles the ready keys; returns how many streams ended. */
  private int handle(Selector selector, ByteBuffer read) {
    int ended = 0;
    Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
    while (keys.hasNext()) {
      SelectionKey key = keys.next();
      keys.remove();
      Stream s = (Stream) key.attachment();
      try {
        if (key.isConnectable()) {
          s.channel.finishConnect();
          s.connected = System.nanoTime();
          key.interestOps(SelectionKey.OP_WRITE);
        }
        if (key.isValid() && key.isWritable()) {
          s.write(key, request);
        }
        if (key.isValid() && key.isReadable()) {
          read.clear();
          int got = s.channel.read(read);
          if (got < 0) {
            s.fail();
          } else {
            read.flip();
            s.feed(read, deltas);
            if (s.ended > 0) {
              s.channel.close();
            }
          }
        }
      } catch (IOException | RuntimeException e) {
        s.fail();
      }
      if (!s.channel.isOpen()) {
        ended++;
      }
    }
    return ended;
  }

  private static Result summarise(Stream[] streams, long start) {
    int complete = 0;
    int errors = 0;
    int failed = 0;
    long lastEnd = start;
    long lastConnected = start;
    long lastAnswered = start;
    double[] durations = new double[streams.length];
    for (int i = 0; i < streams.length; i++) {
      Stream s = streams[i];
      if (s.complete) {
        complete++;
      }
      if (s.errorEvent) {
        errors++;
      }
      if (s.failed) {
        failed++;
      }
      lastEnd = Math.max(lastEnd, s.ended);
      lastConnected = Math.max(lastConnected, s.connected);
      lastAnswered = Math.max(lastAnswered, s.answered);
      durations[i] = s.ended > 0 ? (s.ended - s.began) / 1e9 : Double.POSITIVE_INFINITY;
    }
    Arrays.sort(durations);
    return new Result(streams.length, complete, errors, failed, (lastEnd - start) / 1e9, (lastConnected - start) / 1e9,
        (lastAnswered - start) / 1e9, durations.length == 0 ? 0 : durations[durations.length / 2],
        durations.length == 0 ? 0 : durations[durations.length - 1]);
  }

  /** One connection and where its answer's parsing stands. */
  private static final class Stream {
    private enum Phase { HEAD, SIZE, DATA, DATA_END, TRAILER, FIXED, DONE }

    SocketChannel channel;
    long began;
    long connected;
    long answered;
    long ended;
    boolean complete;
    boolean errorEvent;
    boolean failed;
    private int written;
    private Phase phase = Phase.HEAD;
    private StringBuilder head = new StringBuilder(256);
    private int status;
    private long left; // bytes left in the chunk (chunked) or the body (fixed)
    private final StringBuilder line = new StringBuilder(64); // the current SSE or chunk-size line, first 64 chars
    private boolean errorData; // the next data line is an error's
    private int deltasSeen;
    private boolean stopSeen;

    void write(SelectionKey key, byte[] request) throws IOException {
      written += channel.write(ByteBuffer.wrap(request, written, request.length - written));
      if (written == request.length) {
        key.interestOps(SelectionKey.OP_READ);
      }
    }

    void fail() {
      if (ended == 0) {
        failed = true;
        ended = -1;
      }
      try {
        if (channel != null) {
          channel.close();
        }
      } catch (IOException ignored) {
        // closing
      }
    }

    void feed(ByteBuffer b, int deltas) {
      while (b.hasRemaining() && phase != Phase.DONE) {
        switch (phase) {
          case HEAD -> {
            head.append((char) (b.get() & 0xff));
            if (endsWith(head, TERMINATOR)) {
              startBody();
            }
          }
          case SIZE -> {
            byte c = b.get();
            if (c == '\n') {
              String size = line.toString().trim();
              int semicolon = size.indexOf(';');
              left = Long.parseLong(semicolon < 0 ? size : size.substring(0, semicolon), 16);
              line.setLength(0);
              phase = left == 0 ? Phase.TRAILER : Phase.DATA;
            } else if (c != '\r') {
              line.append((char) c);
            }
          }
          case DATA, FIXED -> {
            int n = (int) Math.min(left, b.remaining());
            for (int i = 0; i < n; i++) {
              sse(b.get());
            }
            left -= n;
            if (left == 0) {
              phase = phase == Phase.DATA ? Phase.DATA_END : Phase.DONE;
            }
          }
          case DATA_END -> {
            if (b.get() == '\n') {
              phase = Phase.SIZE;
            }
          }
          case TRAILER -> {
            byte c = b.get();
            if (c == '\n') {
              if (line.isEmpty()) {
                phase = Phase.DONE;
              }
              line.setLength(0);
            } else if (c != '\r') {
              line.append((char) c);
            }
          }
          case DONE -> { }
        }
      }
      if (phase == Phase.DONE) {
        ended = System.nanoTime();
        complete = status == 200 && stopSeen && !errorEvent && deltasSeen == deltas;
        failed = status != 200;
      }
    }

    private void startBody() {
      answered = System.nanoTime();
      String text = head.toString();
      head = null;
      status = Integer.parseInt(text.substring(9, 12));
      long length = -1;
      boolean chunked = false;
      for (String h : text.split("\r\n")) {
        int colon = h.indexOf(':');
        if (colon > 0) {
          String name = h.substring(0, colon).trim();
          String value = h.substring(colon + 1).trim();
          if (name.equalsIgnoreCase("content-length")) {
            length = Long.parseLong(value);
          } else if (name.equalsIgnoreCase("transfer-encoding") && value.equalsIgnoreCase("chunked")) {
            chunked = true;
          }
        }
      }
      if (chunked) {
        phase = Phase.SIZE;
      } else if (length >= 0) {
        left = length;
        phase = length == 0 ? Phase.DONE : Phase.FIXED;
      } else {
        throw new IllegalStateException("no length");
      }
    }

    private void sse(byte c) {
      if (c == '\n') {
        if (line.length() > 7 && line.charAt(0) == 'e' && line.indexOf("event: ") == 0) {
          String event = line.substring(7);
          switch (event) {
            case "content_block_delta" -> deltasSeen++;
            case "message_stop" -> stopSeen = true;
            case "error" -> {
              errorEvent = true;
              errorData = true;
            }
            default -> { }
          }
        } else if (errorData && line.indexOf("data: ") == 0) {
          errorData = false;
          firstError.compareAndSet(null, line.toString());
        }
        line.setLength(0);
      } else if (line.length() < (errorData ? 400 : 64)) {
        line.append((char) (c & 0xff));
      }
    }

    private static boolean endsWith(StringBuilder s, byte[] tail) {
      int n = s.length();
      if (n < tail.length) {
        return false;
      }
      for (int i = 0; i < tail.length; i++) {
        if (s.charAt(n - tail.length + i) != tail[i]) {
          return false;
        }
      }
      return true;
    }
  }

  static String describe(Result r) {
    return String.format(java.util.Locale.ROOT, "%d/%d complete (%d error events, %d failed); wall %.2f s; "
        + "all connected %.2f s, all answered %.2f s; stream p50 %.2f s, max %.2f s", r.complete(), r.streams(),
        r.errorEvents(), r.failed(), r.wallSeconds(), r.allConnectedSeconds(), r.allAnsweredSeconds(), r.p50Seconds(),
        r.maxSeconds());
  }

  static byte[] body() {
    return SideBySide.body("fast", true);
  }
}
