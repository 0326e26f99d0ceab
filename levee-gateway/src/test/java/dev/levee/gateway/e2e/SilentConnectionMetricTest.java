package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A client connection that sends nothing until {@code server.idle-timeout} is closed without an
 * answer and counted in {@code levee_connections_closed_silent_total}; a served request is not
 * counted.
 */
class SilentConnectionMetricTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY;

  @Test
  void aSilentConnectionIsClosedWithoutAnAnswerAndCounted() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), CONFIG, "idle-timeout: 1s")) {
      assertThat(h.get("/metrics").body()).contains("levee_connections_closed_silent_total 0.0");

      try (Socket silent = new Socket("127.0.0.1", URI.create(String.valueOf(h.gateway.baseUrl())).getPort())) {
        silent.setSoTimeout(20_000);
        assertThat(new String(silent.getInputStream().readAllBytes(), StandardCharsets.US_ASCII))
            .as("closed at the idle timeout, no 408").isEmpty();
      }

      assertThat(h.awaitMetrics("levee_connections_closed_silent_total 1.0"))
          .contains("levee_connections_closed_silent_total 1.0");
    }
  }
}
