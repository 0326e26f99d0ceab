package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12's leftovers): the drill's incident phase was chosen by when a request
 * reached the emulator. On a CPU-starved machine the baseline's requests sent during the outage
 * arrived after it and were answered, and its loss fell to the test's threshold (the drill test
 * flaked). A request may now carry the scenario time it is judged at ({@code
 * x-emulator-incident-ms}: the drill sends each request's nominal send time); without it, the time
 * it arrives, as before.
 */
class IncidentTimeBySendTimeRegressionTest {

  private final ManualClock clock = new ManualClock();

  @Test
  void aRequestIsJudgedAtTheIncidentTimeItCarries() throws Exception {
    Scenario outage = Scenario.builder().seed(1)
        .phase(Scenario.Phase.builder().model("claude-opus-4-6").from(Duration.ofSeconds(1)).to(Duration.ofSeconds(2))
            .status(529).build())
        .build();
    try (Emulator emulator = Emulator.start(EmulatorOptions.builder().scenario(outage).ticker(clock).sleeper(clock)
        .timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).build())) {
      Wire wire = new Wire(emulator);
      clock.advance(Duration.ofSeconds(5)); // it arrives long after the outage

      assertThat(status(wire, "1500")).as("sent during the outage").isEqualTo(529);
      assertThat(status(wire, "500")).as("sent before it").isEqualTo(200);
      assertThat(status(wire, null)).as("no time carried: its arrival").isEqualTo(200);
      assertThat(status(wire, "soon")).as("a time that is not one: its arrival").isEqualTo(200);
      assertThat(emulator.log().getFirst().atMs()).as("the log keeps the arrival").isEqualTo(5_000);
    }
  }

  private static int status(Wire wire, String incidentMs) throws Exception {
    var request = wire.request("/v1/messages", Wire.body("claude-opus-4-6", false, "hi"));
    if (incidentMs != null) {
      request.header("x-emulator-incident-ms", incidentMs);
    }
    HttpResponse<String> response = Wire.HTTP_CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return response.statusCode();
  }
}
