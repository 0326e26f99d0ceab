package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A raw stream client of the gateway that reads an answer's head and its events up to the first
 * content delta (the stream is past its commit point) and then reads nothing more: a wedged or
 * hostile client. Its receive buffer is small (4 KiB), so the gateway's writes to it block once
 * the gateway's send buffer is full. Each read waits at most 20 s.
 */
final class StallingClient implements AutoCloseable {

  private final Socket socket;
  private final String requestId;

  private StallingClient(Socket socket, String requestId) {
    this.socket = socket;
    this.requestId = requestId;
  }

  /**
   * Sends a stream request for {@code model} with {@code prompt} and the key {@code key}, reads up
   * to its first content delta, and stops reading.
   */
  static StallingClient open(Harness h, String model, String key, String prompt) throws IOException {
    Socket socket = new Socket();
    try {
      socket.setReceiveBufferSize(4096); // before connecting: the window the client offers stays small
      socket.connect(new InetSocketAddress("127.0.0.1", h.gateway.baseUrl().getPort()));
      socket.setSoTimeout(20_000);
      String body = "{\"model\":\"" + model + "\",\"stream\":true,\"max_tokens\":64,\"messages\":[{\"role\":\"user\","
          + "\"content\":\"" + prompt + "\"}]}";
      OutputStream out = socket.getOutputStream();
      out.write(("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "x-api-key: " + key + "\r\nanthropic-version: 2023-06-01\r\nContent-Length: "
          + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
      out.flush();
      String seen = readUntilCommitted(socket);
      assertThat(seen).startsWith("HTTP/1.1 200");
      String id = seen.lines().filter(line -> line.regionMatches(true, 0, "x-levee-request-id:", 0, 19))
          .map(line -> line.substring(19).trim()).findFirst().orElseThrow(() -> new AssertionError("no request id: " + seen));
      return new StallingClient(socket, id);
    } catch (IOException | RuntimeException | Error e) {
      socket.close();
      throw e;
    }
  }

  /** The gateway's {@code x-levee-request-id} of the answer, as its access line names it. */
  String requestId() {
    return requestId;
  }

  /** The socket, for a test that goes on to read slowly or write. */
  Socket socket() {
    return socket;
  }

  /** What is left to read until the gateway's close (a reset counts as the end, as does a read that waited 20 s). */
  String drain() throws IOException {
    ByteArrayOutputStream rest = new ByteArrayOutputStream();
    try {
      socket.getInputStream().transferTo(rest);
    } catch (SocketException | SocketTimeoutException e) {
      // reset by the closing gateway, or still open after 20 s (then the content says so)
    }
    return rest.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  private static String readUntilCommitted(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    byte[] chunk = new byte[512];
    while (!seen.toString(StandardCharsets.UTF_8).contains("event: content_block_delta")) {
      int n = in.read(chunk);
      assertThat(n).as("the stream's first content delta arrives; so far: %s", seen).isPositive();
      seen.write(chunk, 0, n);
    }
    return seen.toString(StandardCharsets.UTF_8);
  }
}
