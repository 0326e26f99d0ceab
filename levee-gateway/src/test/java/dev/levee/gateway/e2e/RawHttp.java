package dev.levee.gateway.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Bytes written by hand to the gateway's socket: what no HTTP client would send. */
final class RawHttp {

  private RawHttp() {}

  /**
   * Writes {@code parts} in order on a new connection to the gateway, then reads its answer
   * until it closes the connection (each read waits at most 20 s); the answer as UTF-8 text.
   */
  static String exchange(Harness h, byte[]... parts) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", h.gateway.baseUrl().getPort())) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      for (byte[] part : parts) {
        out.write(part);
      }
      out.flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** {@code text} in ASCII, for {@link #exchange}. */
  static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /** The JSON body of a raw answer (what follows the blank line after its head), or null if it is not JSON. */
  static JsonNode body(String answer) {
    return Json.tryParse(answer.substring(answer.indexOf("\r\n\r\n") + 4));
  }

  /** One answer's head read from {@code in}: the bytes up to and including its blank line (or to the end of input). */
  static String head(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (true) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.write(b);
      byte[] bytes = head.toByteArray();
      int n = bytes.length;
      if (n >= 4 && bytes[n - 4] == '\r' && bytes[n - 3] == '\n' && bytes[n - 2] == '\r' && bytes[n - 1] == '\n') {
        break;
      }
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  /** The {@code content-length} of an answer's {@link #head}, 0 when it has none. */
  static int contentLength(String head) {
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        return Integer.parseInt(line.substring(line.indexOf(':') + 1).strip());
      }
    }
    return 0;
  }
}
