package dev.levee.anthropic.upstream;

import dev.levee.anthropic.time.SystemClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Blocking HTTP/1.1 over plain TCP ({@code http:} upstreams) on the caller's own thread — a
 * virtual thread, as every handler is — with pooled keep-alive connections: no selector, no
 * worker threads, no hand-offs. The JDK {@code HttpClient} spent 39 % of the gateway's CPU on
 * them (issue 11).
 *
 * <p>Same contract as {@link UpstreamClient#send}: the wait for the response headers is bounded
 * by the timeout ({@link HttpTimeoutException}; enforced by {@link HeadDeadlines}, whose shared
 * check closes the connection, not by a timed read, whose park would wake the JDK's
 * timer thread twice per call), the connect by the connect timeout ({@link
 * HttpConnectTimeoutException}); a {@link Cancellation} or an interrupt closes the socket at once;
 * the body streams, and closing the response before its end closes the connection (a finished
 * body returns it to the pool). A body can also be waited on without a thread ({@link
 * #whenReadable}). A request on a kept-alive connection the server had already closed — its write
 * failed, or the answer's read found the connection's end before any byte — is sent once more on a
 * fresh connection; any other failure once the request is written (a reset, a timeout) is the
 * call's, for the caller's retry policy to count: the upstream never gets a call twice unseen.
 * Thread-safe.
 */
final class PlainHttp1 implements AutoCloseable {

  private static final int MAX_IDLE_PER_ORIGIN = 512;
  static final int SMALL_BUFFER = 512; // one slow stream's event or two; 10,000 waiting streams hold 5 MiB, not 20
  static final int LARGE_BUFFER = 16 * 1024;
  private static final int ONE_WRITE_BODY = 64 * 1024; // a larger body is written after its head, not copied behind it
  private static final long MAX_IDLE_NANOS = Duration.ofSeconds(20).toNanos(); // below common server idle timeouts

  private final Duration connectTimeout;
  private final HeadDeadlines deadlines;
  private final Map<String, Idle> idle = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** With real time: {@link SystemClock}'s ticker and its timer thread enforce the head's deadline. */
  PlainHttp1(Duration connectTimeout) {
    this(connectTimeout, new HeadDeadlines(SystemClock.ticker(), SystemClock.scheduler()));
  }

  PlainHttp1(Duration connectTimeout, HeadDeadlines deadlines) {
    this.connectTimeout = connectTimeout;
    this.deadlines = deadlines;
  }

  UpstreamResponse send(UpstreamRequest request, Duration timeout, Cancellation cancellation)
      throws IOException, InterruptedException {
    URI uri = request.uri();
    String host = uri.getHost();
    int port = uri.getPort() < 0 ? 80 : uri.getPort();
    String origin = host + ":" + port;
    byte[] head = head(request, host, port);
    byte[] wire = request.body().length <= ONE_WRITE_BODY ? withBody(head, request.body()) : head;
    long deadline = deadlines.now() + timeout.toNanos();
    boolean stale = false; // a kept-alive connection failed this request before its answer: no second pooled one
    while (true) {
      Connection c = stale ? null : pooled(origin);
      boolean reused = c != null;
      if (c == null) {
        c = connect(origin, host, port, deadline, timeout);
      }
      AutoCloseable registration = cancellation.register(c::close);
      HeadDeadlines.Wait wait = deadlines.start(deadline, c::close, c::arrivedUnread);
      boolean written = false;
      try {
        c.answered = false;
        c.awaitingUpstream = true; // a write the upstream does not take is the upstream's to answer for
        if (wire != head) {
          c.out.write(wire); // head and body in one write: one segment, one wake-up of the server
        } else {
          c.out.write(head);
          c.out.write(request.body());
        }
        c.awaitingUpstream = false;
        written = true;
        Head answer = c.readHead(); // no timed read: the deadline closes the connection (HeadDeadlines)
        if (!wait.end()) {
          throw new SocketTimeoutException(); // the deadline fired as the head arrived: the socket is closing
        }
        InputStream body = c.body(answer, request.method()); // the body's limits belong to the caller
        return new UpstreamResponse(answer.status, Collections.unmodifiableMap(answer.headers), body, cancellation);
      } catch (IOException e) {
        c.close();
        if (!wait.end() || e instanceof SocketTimeoutException) {
          throw new HttpTimeoutException("no response headers within " + timeout.toMillis() + " ms");
        }
        if (cancellation.isCancelled()) {
          throw new CancellationException("client went away");
        }
        if (Thread.interrupted()) {
          throw new InterruptedException("interrupted while calling upstream");
        }
        if (reused && (!written || e instanceof ClosedUnanswered)) {
          stale = true;
          continue; // the server had closed the kept-alive connection before this request: once more, on a fresh one
        }
        throw e;
      } finally {
        wait.end(); // nothing when it ended or fired above
        try {
          registration.close();
        } catch (Exception ignored) {
          // unregistering cannot meaningfully fail
        }
      }
    }
  }

  private Connection pooled(String origin) {
    Idle q = idle.get(origin);
    Connection c;
    while (q != null && (c = q.poll()) != null) {
      if (System.nanoTime() - c.idleSince < MAX_IDLE_NANOS && !c.socket.isClosed()) {
        return c;
      }
      c.close();
    }
    return null;
  }

  private Connection connect(String origin, String host, int port, long deadline, Duration timeout)
      throws IOException, InterruptedException {
    long left = deadline - deadlines.now();
    boolean connectLimited = connectTimeout.toNanos() <= left;
    int millis = (int) Math.max(1, Math.min(connectTimeout.toNanos(), left) / 1_000_000);
    SocketChannel channel = SocketChannel.open(); // a channel's socket: a body can wait without a thread (Readability)
    Socket socket = channel.socket();
    try {
      socket.setTcpNoDelay(true);
      String address = host.startsWith("[") ? host.substring(1, host.length() - 1) : host; // an IPv6 literal
      socket.connect(new InetSocketAddress(address, port), millis);
    } catch (SocketTimeoutException e) {
      socket.close();
      throw connectLimited ? new HttpConnectTimeoutException("connect timed out")
          : new HttpTimeoutException("no response headers within " + timeout.toMillis() + " ms");
    } catch (IOException e) {
      socket.close();
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while connecting upstream");
      }
      throw e;
    }
    return new Connection(origin, channel);
  }

  private void release(Connection c) {
    if (closed) {
      c.close();
      return;
    }
    c.waiting = null; // its stream ended: nothing of it is kept
    c.idleSince = System.nanoTime();
    if (!idle.computeIfAbsent(c.origin, k -> new Idle()).offer(c)) {
      c.close();
    }
  }

  /** Idle connections to {@code origin} now (tests). */
  int idleCount(String origin) {
    Idle q = idle.get(origin);
    return q == null ? 0 : q.size.get();
  }

  /**
   * The idle connections of one origin, most recently used first (the rest age out), at most
   * {@link #MAX_IDLE_PER_ORIGIN}. Counted apart: the deque's own {@code size()} walks every node,
   * and ten thousand streams ending together each asked it.
   */
  private static final class Idle {
    final ConcurrentLinkedDeque<Connection> connections = new ConcurrentLinkedDeque<>();
    final AtomicInteger size = new AtomicInteger();

    Connection poll() {
      Connection c = connections.pollFirst();
      if (c != null) {
        size.decrementAndGet();
      }
      return c;
    }

    boolean offer(Connection c) {
      if (size.incrementAndGet() > MAX_IDLE_PER_ORIGIN) {
        size.decrementAndGet();
        return false;
      }
      connections.addFirst(c);
      return true;
    }
  }

  /**
   * Runs {@code ready} once {@code body} (one this client returned) has bytes to read, its end, or
   * has been closed, instead of the caller waiting in a read: the caller's thread may end meanwhile
   * ({@link Readability}). Nothing is waited for when bytes are already at hand, or the body is
   * finished or closed: the caller reads on at once.
   *
   * @param ready runs on another thread (the selector's, or the one closing the body): it must only
   *     hand off, e.g. start a thread that reads on
   * @return whether {@code ready} will run; false: read now, {@code ready} never runs
   */
  static boolean whenReadable(InputStream body, Runnable ready) {
    return body instanceof Body b && b.whenReadable(ready);
  }

  /** See {@link HeadDeadlines#lateReaders()}. */
  long lateReaders() {
    return deadlines.lateReaders();
  }

  /**
   * Whether bytes of {@code body}'s connection wait for Levee rather than for the upstream ({@link
   * Connection#arrivedUnread()}); false for a body this client did not return.
   */
  static boolean arrivedUnread(InputStream body) {
    return body instanceof Body b && b.c.arrivedUnread();
  }

  /** The capacity of the read buffer behind a body this client returned, in bytes (tests watch its memory). */
  static int readBufferCapacity(InputStream body) {
    return ((Body) body).c.buffer.length;
  }

  private static byte[] head(UpstreamRequest request, String host, int port) throws IOException {
    StringBuilder s = new StringBuilder(256);
    String path = request.uri().getRawPath();
    s.append(request.method()).append(' ').append(path == null || path.isEmpty() ? "/" : path);
    if (request.uri().getRawQuery() != null) {
      s.append('?').append(request.uri().getRawQuery());
    }
    s.append(" HTTP/1.1\r\nhost: ").append(host).append(port == 80 ? "" : ":" + port).append("\r\n");
    for (Map.Entry<String, List<String>> h : request.headers().entrySet()) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (name.equals("host") || name.equals("content-length") || name.equals("connection")
          || name.equals("transfer-encoding")) {
        continue;
      }
      for (String value : h.getValue()) {
        if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0 || name.indexOf(':') >= 0) {
          throw new IOException("invalid header " + name); // never the value: it may be a key
        }
        s.append(name).append(": ").append(value).append("\r\n");
      }
    }
    if (request.body().length > 0 || !request.method().equals("GET")) {
      s.append("content-length: ").append(request.body().length).append("\r\n");
    }
    // one byte per character: the server read each byte of a header as one character (ISO-8859-1),
    // so a value's bytes outside ASCII leave as they came (NonAsciiHeaderBytesRegressionTest)
    return s.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private static byte[] withBody(byte[] head, byte[] body) {
    byte[] wire = Arrays.copyOf(head, head.length + body.length);
    System.arraycopy(body, 0, wire, head.length, body.length);
    return wire;
  }

  @Override
  public void close() {
    closed = true;
    idle.values().forEach(q -> {
      Connection c;
      while ((c = q.poll()) != null) {
        c.close();
      }
    });
  }

  /** Names an upstream sends on most answers, lower-case: matched in place, not allocated per answer. */
  private static final String[] KNOWN_NAMES = {"content-type", "content-length", "connection", "date", "server",
      "transfer-encoding", "keep-alive", "request-id", "x-request-id", "cache-control", "retry-after",
      "anthropic-organization-id", "via", "cf-ray", "x-should-retry"};

  private static final byte[][] KNOWN_BYTES = Arrays.stream(KNOWN_NAMES)
      .map(n -> n.getBytes(StandardCharsets.ISO_8859_1)).toArray(byte[][]::new);

  /** The lower-case, trimmed header name in {@code b[from, to)}. */
  static String name(byte[] b, int from, int to) {
    while (from < to && (b[from] & 0xff) <= ' ') {
      from++;
    }
    while (to > from && (b[to - 1] & 0xff) <= ' ') {
      to--;
    }
    int n = to - from;
    for (int k = 0; k < KNOWN_BYTES.length; k++) {
      byte[] known = KNOWN_BYTES[k];
      if (known.length == n && sameIgnoringCase(b, from, known)) {
        return KNOWN_NAMES[k];
      }
    }
    return new String(b, from, n, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
  }

  private static boolean sameIgnoringCase(byte[] b, int from, byte[] lower) {
    for (int i = 0; i < lower.length; i++) {
      int c = b[from + i];
      if (c >= 'A' && c <= 'Z') {
        c += 'a' - 'A';
      }
      if (c != lower[i]) {
        return false;
      }
    }
    return true;
  }

  /** The trimmed text in {@code b[from, to)} (ISO-8859-1, as HTTP/1.1 field values are read). */
  static String text(byte[] b, int from, int to) {
    while (from < to && (b[from] & 0xff) <= ' ') {
      from++;
    }
    while (to > from && (b[to - 1] & 0xff) <= ' ') {
      to--;
    }
    return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
  }

  private record Head(int status, Map<String, List<String>> headers, boolean keepAlive, long length, boolean chunked) {}

  /**
   * One kept-alive connection and its read buffer: {@link #SMALL_BUFFER} while the answer trickles
   * in (a slow stream waits most of its life in a read: ten thousand of them must not hold 16 KiB
   * each), grown towards {@link #LARGE_BUFFER} when a read filled it and more bytes wait (they
   * arrive faster than they are taken), back to small when drained and nothing more has arrived —
   * except while the answer's head is awaited: a kept-alive connection waits for it on the buffer it
   * has, which the pool held while the connection was idle anyway (at most {@link
   * #MAX_IDLE_PER_ORIGIN} of them). Shrinking it there cost every call on a kept-alive connection
   * a fresh small buffer, and then, when the answer came in one write, a read that filled it, a
   * check of what waited, a grown copy and a read more (session 13: 8.5 KB allocated per
   * side-by-side stream).
   */
  /**
   * The connection's end before any byte of the call's answer: on a kept-alive connection, the
   * server had closed it (its FIN is read before the reset our request draws).
   */
  private static final class ClosedUnanswered extends IOException {
    ClosedUnanswered() {
      super("upstream closed the connection before answering");
    }
  }

  private final class Connection {
    final String origin;
    final SocketChannel channel;
    final Socket socket;
    final InputStream in;
    final OutputStream out;
    private volatile boolean closed;
    private volatile Readability.Wait waiting; // the last wait for readability: its close must end it
    // in a write to the upstream, a read from it or a wait for its bytes: what is owed is the upstream's
    private volatile boolean awaitingUpstream;
    byte[] buffer = new byte[SMALL_BUFFER];
    int position;
    int limit;
    long idleSince;
    boolean answered; // a byte of the current call's answer arrived
    private boolean readingHead; // the answer's head is awaited: the buffer is not shrunk before the wait

    Connection(String origin, SocketChannel channel) throws IOException {
      this.origin = origin;
      this.channel = channel;
      this.socket = channel.socket();
      this.in = socket.getInputStream();
      this.out = socket.getOutputStream();
    }

    /**
     * Whether what a limit waits for is in Levee's hands rather than the upstream's: the thread that
     * reads this connection is not waiting on the upstream (it is busy, or has not run yet), or bytes
     * have arrived in the socket that it has not read. Called on the timer's thread once a limit has
     * passed ({@link Watchdog}): a starved gateway's late reader is not the upstream's timeout. Never
     * blocks (the socket's count of received bytes takes no read lock).
     */
    boolean arrivedUnread() {
      if (closed) {
        return false;
      }
      if (!awaitingUpstream) {
        return true;
      }
      try {
        return in.available() > 0;
      } catch (IOException e) {
        return false;
      }
    }

    void close() {
      closed = true;
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing
      }
      Readability.Wait wait = waiting;
      if (wait != null) {
        wait.end(); // a closed channel's key is cancelled without a select event
      }
    }

    /** About to wait with less than a small buffer unread: the unread bytes move to a small buffer. */
    private void smallWhileWaiting() {
      int unread = limit - position;
      byte[] small = new byte[SMALL_BUFFER];
      System.arraycopy(buffer, position, small, 0, unread);
      buffer = small;
      position = 0;
      limit = unread;
    }

    /**
     * See {@link PlainHttp1#whenReadable}; at most part of a chunk header is unread. A large buffer
     * goes first, as before a wait in {@link #fill()}: a stream resumed after its wait reads with
     * bytes available, which keeps the buffer it has (issue 11: 10,000 waiting streams would hold
     * 16 KiB each).
     */
    boolean whenReadable(Runnable ready) {
      if (buffer.length > SMALL_BUFFER) {
        smallWhileWaiting();
      }
      Readability.Wait wait = Readability.shared().waitFor(channel, ready);
      waiting = wait; // before it starts: a close from now on ends it
      awaitingUpstream = true;
      try {
        wait.start();
        return true;
      } catch (IOException e) {
        waiting = null;
        return false; // closed: the read at once fails as a closed connection's does
      }
    }

    /**
     * Reads what arrives next after the unread bytes, which move to the buffer's start first: the
     * small buffer then fills (and grows) only when that much is unread, not when a read lands
     * near its end. About to wait with less than a small buffer unread, the unread bytes move to
     * a small buffer: a slow stream does not hold the large one while it waits for its next event
     * (or, mid-line, for the rest of a chunk header).
     */
    boolean fill() throws IOException {
      int unread = limit - position;
      if (!readingHead && buffer.length > SMALL_BUFFER && unread < SMALL_BUFFER && in.available() == 0) {
        smallWhileWaiting(); // about to wait in the read
      } else if (position > 0) {
        System.arraycopy(buffer, position, buffer, 0, unread);
        position = 0;
        limit = unread;
      }
      if (closed) { // also when closed while waiting for readability: the channel may still be non-blocking
        throw new IOException("connection closed");
      }
      awaitingUpstream = true;
      int n;
      try {
        n = in.read(buffer, limit, buffer.length - limit);
      } finally {
        awaitingUpstream = false;
      }
      if (n < 0) {
        return false;
      }
      answered = true;
      limit += n;
      if (limit == buffer.length && buffer.length < LARGE_BUFFER) {
        int waiting = in.available();
        if (waiting > 0) { // bytes arrive faster than they are taken: room for them, at most the large buffer
          buffer = Arrays.copyOf(buffer, grownTo(limit + waiting));
        }
      }
      return true;
    }

    /**
     * The next buffer size for {@code needed} bytes: a power of two, at least twice the buffer, at
     * most {@link #LARGE_BUFFER}. Issue 11: a read that filled the small buffer took the large one
     * at once, and the answer's head with its first event (about 600 bytes), or two events read
     * together, each took 16 KiB: 28 % of the bytes allocated in a round of 9,900 slow streams.
     */
    private int grownTo(int needed) {
      int size = Math.max(buffer.length * 2, Integer.highestOneBit(needed - 1) << 1);
      return Math.min(size, LARGE_BUFFER);
    }

    String line() throws IOException {
      StringBuilder s = null;
      while (true) {
        for (int i = position; i < limit; i++) {
          if (buffer[i] == '\n') {
            int end = i > position && buffer[i - 1] == '\r' ? i - 1 : i;
            String text = new String(buffer, position, end - position, StandardCharsets.ISO_8859_1);
            boolean split = s != null && i == position && !s.isEmpty() && s.charAt(s.length() - 1) == '\r';
            position = i + 1;
            if (split) { // the CR was the full buffer's last byte, its LF the next read's first
              s.setLength(s.length() - 1);
            }
            return s == null ? text : s.append(text).toString();
          }
        }
        if (limit == buffer.length) { // a line longer than the buffer
          s = s == null ? new StringBuilder() : s;
          if (s.length() > 64 * 1024) {
            throw new IOException("upstream header line too long");
          }
          s.append(new String(buffer, position, limit - position, StandardCharsets.ISO_8859_1));
          position = limit;
        }
        if (!fill()) {
          throw answered ? new IOException("upstream closed the connection") : new ClosedUnanswered();
        }
      }
    }

    Head readHead() throws IOException {
      readingHead = true;
      try {
        return head();
      } finally {
        readingHead = false;
      }
    }

    private Head head() throws IOException {
      while (true) {
        String status = line();
        if (!status.startsWith("HTTP/1.") || status.length() < 12) {
          throw new IOException("not an HTTP/1.1 response");
        }
        int code = Integer.parseInt(status.substring(9, 12));
        Map<String, List<String>> headers = new LinkedHashMap<>();
        int total = 0;
        int length;
        while ((length = header(headers)) > 0) {
          total += length;
          if (total > 256 * 1024) {
            throw new IOException("upstream headers too large");
          }
        }
        if (code >= 100 && code < 200) {
          continue; // an interim answer: the real one follows
        }
        boolean keepAlive = status.startsWith("HTTP/1.1") && !any(headers.get("connection"), "close", false);
        boolean chunked = any(headers.get("transfer-encoding"), "chunked", true);
        List<String> contentLength = headers.get("content-length");
        long n = chunked || contentLength == null ? -1 : Long.parseLong(contentLength.get(0).trim());
        return new Head(code, headers, keepAlive && (chunked || n >= 0), n, chunked);
      }
    }

    /**
     * Reads one header line into {@code headers} (name lower-cased, name and value trimmed), parsed
     * where it lies in the buffer when it is whole there (no line string, no substrings).
     *
     * @return the line's length in characters; 0 at the blank line that ends the head
     */
    private int header(Map<String, List<String>> headers) throws IOException {
      int newline = -1;
      for (int i = position; i < limit; i++) {
        if (buffer[i] == '\n') {
          newline = i;
          break;
        }
      }
      if (newline < 0) { // not whole in the buffer yet: the general path
        String line = line();
        if (!line.isEmpty()) {
          int colon = line.indexOf(':');
          if (colon <= 0) {
            throw new IOException("malformed upstream header");
          }
          add(headers, line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        return line.length();
      }
      int from = position;
      int end = newline > from && buffer[newline - 1] == '\r' ? newline - 1 : newline;
      position = newline + 1;
      if (end == from) {
        return 0;
      }
      int colon = from;
      while (colon < end && buffer[colon] != ':') {
        colon++;
      }
      if (colon == end || colon == from) {
        throw new IOException("malformed upstream header");
      }
      add(headers, name(buffer, from, colon), text(buffer, colon + 1, end));
      return end - from;
    }

    private static void add(Map<String, List<String>> headers, String name, String value) {
      List<String> values = headers.get(name);
      if (values == null) {
        headers.put(name, List.of(value));
      } else {
        List<String> more = new ArrayList<>(values.size() + 1);
        more.addAll(values);
        more.add(value);
        headers.put(name, Collections.unmodifiableList(more));
      }
    }

    /** Whether a value of {@code values} is {@code token} (any case), or contains it. */
    private static boolean any(List<String> values, String token, boolean contains) {
      if (values != null) {
        for (String v : values) {
          if (contains ? v.toLowerCase(Locale.ROOT).contains(token) : v.equalsIgnoreCase(token)) {
            return true;
          }
        }
      }
      return false;
    }
    InputStream body(Head head, String method) {
      boolean none = method.equals("HEAD") || head.status == 204 || head.status == 304;
      return new Body(this, head.keepAlive, none ? 0 : head.length, !none && head.chunked);
    }
  }

  /**
   * A response body: Content-Length, chunked, or to the end of the connection. {@link #available()}
   * never blocks and never overstates: bytes it reports can be read without waiting.
   */
  private final class Body extends InputStream {
    private final Connection c;
    private final boolean reusable;
    private final boolean chunked;
    private long left; // bytes left in the body (fixed) or the current chunk (chunked); -1: to EOF
    private boolean crlfPending; // chunked: the CRLF after a chunk's data is still to be read
    private boolean done;
    private final AtomicBoolean closed = new AtomicBoolean();
    // the id of the last thread to read (a stream is relayed on threads of its own); not the thread, which has
    // ended while its stream waits with no thread, and would keep its task and its frames' leftovers (issue 11)
    private long reader = Thread.currentThread().threadId();

    Body(Connection c, boolean reusable, long length, boolean chunked) {
      this.c = c;
      this.reusable = reusable;
      this.chunked = chunked;
      this.left = chunked ? 0 : length;
      this.done = !chunked && length == 0;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (closed.get()) {
        throw new IOException("closed");
      }
      reader = Thread.currentThread().threadId();
      if (done) {
        return -1;
      }
      if (len == 0) {
        return 0;
      }
      if (chunked && left == 0 && !nextChunk()) {
        return -1;
      }
      if (c.position == c.limit && !c.fill()) {
        if (left < 0) {
          done = true;
          return -1;
        }
        throw new IOException("upstream body cut short");
      }
      int n = Math.min(c.limit - c.position, len);
      if (left >= 0) {
        n = (int) Math.min(n, left);
        left -= n;
      }
      System.arraycopy(c.buffer, c.position, b, off, n);
      c.position += n;
      if (left == 0) {
        if (chunked) {
          crlfPending = true;
        } else {
          done = true;
        }
      }
      return n;
    }

    /** Reads the next chunk's size (blocking); false (and done) at the last chunk. */
    private boolean nextChunk() throws IOException {
      if (crlfPending) {
        if (!c.line().isEmpty()) {
          throw new IOException("malformed chunk");
        }
        crlfPending = false;
      }
      left = chunkSize(c.line());
      if (left == 0) {
        while (!c.line().isEmpty()) {
          // trailers: nothing Levee needs
        }
        done = true;
        return false;
      }
      return true;
    }

    private static long chunkSize(String line) throws IOException {
      int semicolon = line.indexOf(';');
      try {
        long size = Long.parseLong((semicolon < 0 ? line : line.substring(0, semicolon)).trim(), 16);
        if (size < 0) {
          throw new IOException("malformed chunk size");
        }
        return size;
      } catch (NumberFormatException e) {
        throw new IOException("malformed chunk size");
      }
    }

    @Override
    public int available() {
      if (closed.get() || done) {
        return 0;
      }
      try {
        if (chunked && left == 0 && !nextChunkBuffered()) {
          return 0;
        }
        int buffered = c.limit - c.position;
        int n = buffered > 0 ? buffered : c.in.available();
        return left >= 0 ? (int) Math.min(n, left) : n;
      } catch (IOException e) {
        return 0;
      }
    }

    /** Takes the next chunk's header when it is whole in the buffer (never at the last chunk); else false. */
    private boolean nextChunkBuffered() throws IOException {
      int i = c.position;
      if (crlfPending) {
        if (i + 1 >= c.limit) {
          return false;
        }
        i += c.buffer[i] == '\r' ? 2 : 1;
      }
      for (int j = i; j < c.limit; j++) {
        if (c.buffer[j] == '\n') {
          int end = j > i && c.buffer[j - 1] == '\r' ? j - 1 : j;
          long size = chunkSize(new String(c.buffer, i, end - i, StandardCharsets.ISO_8859_1));
          if (size == 0) {
            return false; // the end: left for read() to take, trailers and all
          }
          c.position = j + 1;
          crlfPending = false;
          left = size;
          return true;
        }
      }
      return false;
    }

    /**
     * A stream's reader stops at {@code message_stop}, before the last chunk: take it (and the
     * blank line after it) when it already arrived, so the connection can be kept.
     */
    private void finishBuffered() {
      try {
        if (c.position == c.limit && c.in.available() > 0) {
          c.fill(); // only what already arrived: does not wait
        }
        String rest = new String(c.buffer, c.position, c.limit - c.position, StandardCharsets.ISO_8859_1);
        String end = crlfPending ? "\r\n0\r\n\r\n" : "0\r\n\r\n";
        if (rest.equals(end)) {
          c.position = c.limit;
          done = true;
        }
      } catch (IOException e) {
        // not kept then
      }
    }

    /**
     * See {@link PlainHttp1#whenReadable}. Waits only when nothing received lets a read go on: bytes
     * in the socket, a chunk's data, or a whole chunk header in the buffer (the last chunk's too: a
     * body ending without more bytes to come) would; the CRLF closing a chunk, or part of the next
     * header, would not.
     */
    boolean whenReadable(Runnable ready) {
      try {
        if (closed.get() || done || available() > 0 || (chunked ? chunkHeaderBuffered() : c.position < c.limit)
            || c.in.available() > 0) {
          return false;
        }
      } catch (IOException e) {
        return false; // the read fails at once
      }
      return c.whenReadable(ready);
    }

    /** Whether the buffer holds a whole line after the pending CRLF (a chunk's size line). */
    private boolean chunkHeaderBuffered() {
      int i = c.position;
      if (crlfPending) {
        if (i >= c.limit) {
          return false;
        }
        i += c.buffer[i] == '\r' ? 2 : 1;
      }
      for (int j = i; j < c.limit; j++) {
        if (c.buffer[j] == '\n') {
          return true;
        }
      }
      return false;
    }

    /** A finished body returns the connection to the pool; an unfinished one closes it (abort). */
    @Override
    public void close() {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      if (!done && chunked && left == 0 && reusable && Thread.currentThread().threadId() == reader) {
        finishBuffered();
      }
      if (done && reusable && c.position == c.limit) {
        release(c);
      } else {
        c.close();
      }
    }
  }
}
