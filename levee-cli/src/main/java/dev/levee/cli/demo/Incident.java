package dev.levee.cli.demo;

import dev.levee.emulator.Scenario;
import java.time.Duration;

/**
 * The demo's built-in incident on the primary model, scaled to the demo's length: healthy for
 * the first 8%, a full outage (every call 529) until 33%, a partial overload (40% of calls 529)
 * until 67%, then recovery. At the default 60 s: 0–5 s healthy, 5–20 s down, 20–40 s 40%
 * overloaded, 40–60 s healthy.
 */
final class Incident {

  private Incident() {}

  static Scenario of(String primaryModel, Duration length, long seed) {
    long ms = length.toMillis();
    Duration outageStart = Duration.ofMillis(ms * 8 / 100);
    Duration overloadStart = Duration.ofMillis(ms * 33 / 100);
    Duration recovery = Duration.ofMillis(ms * 67 / 100);
    return Scenario.builder().seed(seed)
        .phase(Scenario.Phase.builder().model(primaryModel).from(outageStart).to(overloadStart)
            .status(529).rate(1.0).build())
        .phase(Scenario.Phase.builder().model(primaryModel).from(overloadStart).to(recovery)
            .status(529).rate(0.4).build())
        .build();
  }

  /** One line per phase, for the demo's header. */
  static String describe(Duration length) {
    long ms = length.toMillis();
    return String.format("incident on the primary: healthy 0-%ds, full outage %d-%ds (all 529), "
            + "partial overload %d-%ds (40%% 529), recovered %d-%ds",
        ms * 8 / 100_000, ms * 8 / 100_000, ms * 33 / 100_000, ms * 33 / 100_000, ms * 67 / 100_000,
        ms * 67 / 100_000, ms / 1000);
  }
}
