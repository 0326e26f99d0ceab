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
 * says {@code status=499 outcome=client_gone}, as the jobs and batches endpoints say of an answer
 * that could not be sent. The emulator's answers are a few hundred bytes, so a scripted upstream
 * answers 8 MiB of text.
 */
class StalledJsonClientRegressionTest {

  private static final String BIG_ANSWER = "{\"id\":\"msg_big\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
      + "\"content\":[{\"type\":\"text\",\"text\":" + Json.string("word ".repeat((8 << 20) / 5)) + "}],"
      + "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1677721}}";

  @Test
  void aClientThatStopsReadingALargeJsonAnswerIsCutAndLoggedAsGone() throws Exception {
    try (ScriptedUpstream upstream = new ScriptedUpstream(request -> ScriptedUpstream.Answer.json(BIG_ANSWER));
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
      assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
      // and reads no more

      List<String> lines = access.awaitContaining("model=big");

      assertThat(lines).as("the answer's access line, written once its write failed").singleElement().asString()
          .contains("status=499").contains("outcome=client_gone");
      long rest = 0;
      try {
        rest = in.transferTo(OutputStream.nullOutputStream());
      } catch (IOException reset) {
        // a reset is a close too
      }
      assertThat(rest).as("the answer was cut: what the buffers held, not its 8 MiB").isLessThan(8L << 20);
    }
  }
}
