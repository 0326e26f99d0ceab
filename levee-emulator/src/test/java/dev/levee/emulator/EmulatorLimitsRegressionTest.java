package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.server.ServerLimits;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Issue 9 items 1 and 2 for the emulator: it had the gateway's cap of 200 handlers, and a
 * slowloris client kept a read open indefinitely.
 */
class EmulatorLimitsRegressionTest {

  @Test
  void moreThanTwoHundredHangingRequestsAllArriveAndTheControlLaneAnswers() throws Exception {
    try (Emulator emulator = Emulator.start(EmulatorOptions.defaults())) {
      Wire wire = new Wire(emulator);
      List<CompletableFuture<HttpResponse<String>>> hanging = new ArrayList<>();
      for (int i = 0; i < 260; i++) {
        hanging.add(Wire.HTTP_CLIENT.sendAsync(wire.request("/v1/messages", Wire.body("emu-hang", false, "hi"))
            .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString()));
      }

      assertThat(emulator.awaitLog(log -> log.size() == 260, Duration.ofSeconds(30))).hasSize(260);
      assertThat(wire.get("/_emulator/log").statusCode()).isEqualTo(200);
      hanging.forEach(response -> response.cancel(true));
    }
  }

  @Test
  void headersSentTooSlowlyGet408() throws Exception {
    try (Emulator emulator = Emulator.start(EmulatorOptions.builder()
            .limits(ServerLimits.DEFAULT.withTimeouts(Duration.ofMillis(300), 1_000)).build());
         Socket socket = new Socket("127.0.0.1", emulator.port())) {
      socket.setSoTimeout(20_000);
      socket.getOutputStream().write("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();

      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);

      assertThat(answer).startsWith("HTTP/1.1 408").contains("\"timeout_error\"").doesNotContain("Exception");
    }
  }
}
