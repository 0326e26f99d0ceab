package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With {@link StalledStreamClientRegressionTest}: a client that stops reading a JSON answer larger
 * than the socket buffers held its connection, and the request's thread blocked in the write, until
 * the 300 s idle timeout; and a JSON answer whose writing failed was logged {@code outcome=ok}. Now
 * the write fails after {@code server.send-timeout} (here 1 s) without progress, and the access line
 * says {@code outcome=send_timeout} (it said {@code client_gone}, as for a client that disconnects,
 * until the two were told apart) with the status that was sent ({@code status=200}: its head went
 * out, as a stream's {@code stream_send_timeout} says), as for every answer written whole. The
 * emulator's answers are a few hundred bytes, so a scripted upstream answers 48 MiB of text: far
 * more than the loopback socket buffers hold (a send buffer of up to {@code net.ipv4.tcp_wmem}'s
 * maximum, 4 MiB by default and more on some hosts, where an 8 MiB answer once fitted whole), and
 * below the 64 MiB the gateway reads of an upstream answer at most.
 */
class StalledJsonClientRegressionTest {

  private static final int BIG = 48 << 20;

  private static final String TEXT = Json.string("word ".repeat(BIG / 5));

  private static final String BIG_ANSWER = "{\"id\":\"msg_big\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
      + "\"content\":[{\"type\":\"text\",\"text\":" + TEXT + "}],"
      + "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1677721}}";

  @Test
  void aClientThatStopsReadingALargeJsonAnswerIsCutAndLoggedAsTimedOut() throws Exception {
    String line = lineOfAStalledClient(ScriptedUpstream.Answer.json(BIG_ANSWER), "HTTP/1.1 200");

    assertThat(line).contains("status=200").endsWith("outcome=send_timeout");
  }

  /**
   * The access line of a request answered {@code answer} by the upstream, whose client reads the
   * answer's first 12 bytes ({@code head}) and no more; asserts that the answer was cut. (Only a
   * 200 can be large: the gateway reads at most 1 MiB of an upstream's error.)
   */
  private static String lineOfAStalledClient(ScriptedUpstream.Answer answer, String head) throws Exception {
    try (ScriptedUpstream upstream = new ScriptedUpstream(request -> answer);
        AccessLines access = new AccessLines();
        Harness h = Harness.start(EmulatorOptions.defaults(),
            upstream.upstream("scripted") + "models:\n  big: { chain: [scripted/m] }\n" + Harness.BASE_POLICY,
            "send-timeout: 1s");
        Socket client = new Socket()) {
      client.setReceiveBufferSize(4096);
      client.connect(new InetSocketAddress("127.0.0.1", h.gateway.baseUrl().getPort()));
      client.setSoTimeout(20_000);
      String body = "{\"model\":\"big\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"all of it\"}]}";
      OutputStream out = client.getOutputStream();
      out.write(("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "x-api-key: sk-test-client-key\r\nanthropic-version: 2023-06-01\r\nContent-Length: "
          + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = client.getInputStream();
      assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo(head);
      // and reads no more

      List<String> lines = access.awaitContaining("model=big");
      String timedOut = "levee_requests_total{endpoint=\"messages\",outcome=\"send_timeout\",tier=\"T0\"} 1.0";
      assertThat(h.awaitMetrics(timedOut)).as("counted as cut by the send timeout, not as a client gone")
          .contains(timedOut).doesNotContain("outcome=\"client_gone\"");

      long rest = 0;
      try {
        rest = in.transferTo(OutputStream.nullOutputStream());
      } catch (IOException reset) {
        // a reset is a close too
      }
      assertThat(rest).as("the answer was cut: what the buffers held, not its 48 MiB").isLessThan(BIG);
      assertThat(lines).as("the answer's access line, written once its write failed").hasSize(1);
      return lines.get(0);
    }
  }
}
