package dev.levee.bench.sidebyside;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One client connection of {@link Soak}: raw HTTP/1.1 over a loopback socket, so that a client can
 * misbehave as real ones do — read an answer slowly through a small receive buffer, leave in the
 * middle of a stream (with a FIN or a reset), send bytes that are not a valid request. Reads a
 * status, headers and a {@code content-length}, chunked or read-to-close body. Not thread-safe.
 */
final class SoakConnection implements AutoCloseable {

  /** How the answer is read. */
  enum Reading {
    /** At once, whole. */
    WHOLE,
    /** 128 bytes every 50 ms through a 1 KiB receive buffer: a client on a slow link. */
    SLOW,
    /** Until the first {@code content_block_delta}, then the connection is dropped. */
    UNTIL_FIRST_DELTA
  }

  /** An answer: its status, lower-cased header names with their first value, and its body. */
  record Answer(int status, Map<String, String> headers, byte[] body) {

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    boolean keepAlive() {
      return !"close".equalsIgnoreCase(headers.getOrDefault("connection", ""));
    }
  }

  private static final int READ_TIMEOUT_MS = 30_000;
  private static final String DELTA = "content_block_delta";

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  /** @param slow whether this connection reads as {@link Reading#SLOW} (its receive buffer is set before connecting) */
  SoakConnection(URI base, boolean slow) throws IOException {
    socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(READ_TIMEOUT_MS);
    if (slow) {
      socket.setReceiveBufferSize(1024);
    }
    socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
    InputStream raw = socket.getInputStream();
    in = slow ? new BufferedInputStream(new Throttled(raw), 128) : new BufferedInputStream(raw, 16_384);
    out = socket.getOutputStream();
  }

  /** The bytes of a request with {@code headers} (besides {@code host} and {@code content-length}) and {@code body}. */
  static byte[] request(String method, String path, Map<String, String> headers, byte[] body) {
    StringBuilder head = new StringBuilder(256).append(method).append(' ').append(path).append(" HTTP/1.1\r\n")
        .append("host: 127.0.0.1\r\n");
    headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
    if (body != null) {
      head.append("content-length: ").append(body.length).append("\r\n");
    }
    head.append("\r\n");
    ByteArrayOutputStream all = new ByteArrayOutputStream(head.length() + (body == null ? 0 : body.length));
    all.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
    if (body != null) {
      all.writeBytes(body);
    }
    return all.toByteArray();
  }

  void send(byte[] request) throws IOException {
    out.write(request);
    out.flush();
  }

  /** Sends {@code request} and reads its answer {@code how}; null when {@link Reading#UNTIL_FIRST_DELTA} left. */
  Answer exchange(byte[] request, Reading how) throws IOException {
    send(request);
    return read(how);
  }

  Answer read(Reading how) throws IOException {
    String status = line();
    if (status == null) {
      throw new IOException("closed before an answer");
    }
    int code = Integer.parseInt(status.substring(9, 12));
    Map<String, String> headers = new HashMap<>();
    for (String header; !(header = need(line())).isEmpty(); ) {
      int colon = header.indexOf(':');
      headers.putIfAbsent(header.substring(0, colon).trim().toLowerCase(Locale.ROOT),
          header.substring(colon + 1).trim());
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      int size;
      while ((size = Integer.parseInt(need(line()).trim().split(";")[0], 16)) > 0) {
        byte[] chunk = in.readNBytes(size);
        if (chunk.length < size) {
          throw new IOException("closed mid-chunk");
        }
        body.writeBytes(chunk);
        line();
        if (how == Reading.UNTIL_FIRST_DELTA && body.toString(StandardCharsets.ISO_8859_1).contains(DELTA)) {
          return null;
        }
      }
      while (!need(line()).isEmpty()) {
        // trailers
      }
    } else if (headers.containsKey("content-length")) {
      int length = Integer.parseInt(headers.get("content-length"));
      byte[] b = in.readNBytes(length);
      if (b.length < length) {
        throw new IOException("closed mid-body");
      }
      body.writeBytes(b);
    } else if (code != 204 && code != 304 && code >= 200) {
      body.writeBytes(in.readAllBytes()); // read to close
      headers.put("connection", "close");
    }
    return new Answer(code, headers, body.toByteArray());
  }

  /** Closes with a reset (SO_LINGER 0) instead of a FIN: a client killed, or a proxy timing out. */
  void reset() throws IOException {
    socket.setSoLinger(true, 0);
    socket.close();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** A line without its CR LF; null at the end of the stream before any byte. */
  private String line() throws IOException {
    StringBuilder s = new StringBuilder(64);
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      if (b != '\r') {
        s.append((char) b);
      }
    }
    if (b < 0 && s.isEmpty()) {
      return null;
    }
    return s.toString();
  }

  private static String need(String line) throws IOException {
    if (line == null) {
      throw new IOException("closed mid-answer");
    }
    return line;
  }

  /** Reads at most 128 bytes at a time, 50 ms apart. */
  private static final class Throttled extends FilterInputStream {
    Throttled(InputStream in) {
      super(in);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
      return super.read(b, off, Math.min(len, 128));
    }
  }
}
