package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression: the disconnect watch was still reading the connection when the last byte of a
 * sized JSON answer went out, so it swallowed the start of the client's next request on the same
 * kept-alive connection (Jetty answered "400 No URI" or the client saw the connection drop).
 */
class KeepAliveRegressionTest {

  @Test
  void aKeptAliveConnectionServesManyAnswersAndErrorsInARow() throws Exception {
    try (Emulator emulator = Emulator.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO)
        .deltaDelay(Duration.ZERO).build())) {
      Wire wire = new Wire(emulator);
      List<Integer> statuses = new ArrayList<>();

      for (int i = 0; i < 100; i++) {
        statuses.add(wire.post("/v1/messages", Wire.body(i % 2 == 0 ? "emu-ok" : "emu-529", false, "hi")).statusCode());
        statuses.add(wire.post("/v1/messages", Wire.body("emu-ok", true, "hi")).statusCode());
      }

      assertThat(statuses.stream().distinct().toList()).containsExactlyInAnyOrder(200, 529);
      assertThat(emulator.log()).hasSize(200).allMatch(entry -> !entry.clientGoneEarly());
    }
  }
}
