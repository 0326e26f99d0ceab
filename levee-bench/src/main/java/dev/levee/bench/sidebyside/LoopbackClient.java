package dev.levee.bench.sidebyside;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A lean HTTP/1.1 client over one kept-alive loopback connection: writes prepared request bytes,
 * reads the status, the headers and a {@code Content-Length} or chunked body, and notes when the
 * first {@code content_block_delta} arrived. A few microseconds per request (the JDK {@code
 * HttpClient} spends ~550 µs), so it is not what a measurement measures. Not thread-safe.
 */
public final class LoopbackClient implements AutoCloseable {

  private static final byte[] DELTA = "content_block_delta".getBytes(StandardCharsets.US_ASCII);

  /** One answer: its status, body, and the nanos from sending to the first delta (-1: none). */
  public record Answer(int status, byte[] body, long toFirstDeltaNanos) {

    /** Whether this is a whole stream: ends with message_stop, no error event, {@code deltas} deltas. */
    boolean completeStream(int deltas) {
      String text = new String(body, StandardCharsets.UTF_8);
      return status == 200 && text.endsWith("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
          && !text.contains("event: error") && count(text, "event: content_block_delta\n") == deltas;
    }

    private static int count(String text, String what) {
      int n = 0;
      for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length())) {
        n++;
      }
      return n;
    }
  }

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final byte[] request;

  public LoopbackClient(URI base, byte[] body) throws IOException {
    socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.connect(new InetSocketAddress(base.getHost(), base.getPort()));
    in = new BufferedInputStream(socket.getInputStream(), 16_384);
    out = socket.getOutputStream();
    request = requestBytes(base, body);
  }

  static byte[] requestBytes(URI base, byte[] body) {
    String head = "POST /v1/messages HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
        + "\r\ncontent-type: application/json\r\nx-api-key: bench\r\nanthropic-version: 2023-06-01\r\ncontent-length: "
        + body.length + "\r\n\r\n";
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    all.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
    all.writeBytes(body);
    return all.toByteArray();
  }

  public Answer exchange() throws IOException {
    long start = System.nanoTime();
    out.write(request);
    out.flush();
    String status = line();
    int code = Integer.parseInt(status.substring(9, 12));
    long length = -1;
    boolean chunked = false;
    String header;
    while (!(header = line()).isEmpty()) {
      int colon = header.indexOf(':');
      String name = header.substring(0, colon).trim();
      String value = header.substring(colon + 1).trim();
      if (name.equalsIgnoreCase("content-length")) {
        length = Long.parseLong(value);
      } else if (name.equalsIgnoreCase("transfer-encoding") && value.equalsIgnoreCase("chunked")) {
        chunked = true;
      }
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    long firstDelta = -1;
    if (chunked) {
      int size;
      while ((size = Integer.parseInt(line().trim().split(";")[0], 16)) > 0) {
        body.write(in.readNBytes(size), 0, size);
        line();
        if (firstDelta < 0 && contains(body, DELTA)) {
          firstDelta = System.nanoTime() - start;
        }
      }
      while (!line().isEmpty()) {
        // trailers
      }
    } else if (length >= 0) {
      byte[] b = in.readNBytes((int) length);
      body.write(b, 0, b.length);
      if (contains(body, DELTA)) {
        firstDelta = System.nanoTime() - start;
      }
    } else {
      throw new IOException("no length: " + status);
    }
    return new Answer(code, body.toByteArray(), firstDelta);
  }

  private String line() throws IOException {
    StringBuilder s = new StringBuilder(64);
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      if (b != '\r') {
        s.append((char) b);
      }
    }
    if (b < 0 && s.isEmpty()) {
      throw new IOException("connection closed");
    }
    return s.toString();
  }

  private static boolean contains(ByteArrayOutputStream out, byte[] what) {
    return new String(out.toByteArray(), StandardCharsets.ISO_8859_1).contains(new String(what, StandardCharsets.ISO_8859_1));
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
