package dev.levee.cli.demo;

import dev.levee.emulator.Scenario;
import java.time.Duration;

/**
 * The demo's built-in incident on the primary model, scaled to the demo's length and placed on
 * whole seconds (the demo's timeline and report count per second): healthy for the first 8%, a
 * full outage (every call 529) until 33%, a partial overload (40% of calls 529) until 67%, then
 * recovery. At the default 60 s: 0–5 s healthy, 5–20 s down, 20–40 s 40% overloaded, 40–60 s
 * healthy.
 */
final class Incident {

  private Incident() {}

  /** The phases' edges in whole seconds; the outage starts after at least one healthy second. */
  private record Edges(long outage, long overload, long recovery, long end) {

    static Edges of(Duration length) {
      long end = length.toSeconds();
      long outage = Math.max(1, Math.round(end * 0.08));
      long overload = Math.max(outage + 1, Math.round(end * 0.33));
      long recovery = Math.max(overload + 1, Math.round(end * 0.67));
      return new Edges(outage, overload, recovery, end);
    }
  }

  static Scenario of(String primaryModel, Duration length, long seed) {
    Edges at = Edges.of(length);
    return Scenario.builder().seed(seed)
        .phase(Scenario.Phase.builder().model(primaryModel).from(Duration.ofSeconds(at.outage()))
            .to(Duration.ofSeconds(at.overload())).status(529).rate(1.0).build())
        .phase(Scenario.Phase.builder().model(primaryModel).from(Duration.ofSeconds(at.overload()))
            .to(Duration.ofSeconds(at.recovery())).status(529).rate(0.4).build())
        .build();
  }

  /** One line per phase, for the demo's header: the same seconds as {@link #of}. */
  static String describe(Duration length) {
    Edges at = Edges.of(length);
    return String.format("incident on the primary: healthy 0-%ds, full outage %d-%ds (all 529), "
            + "partial overload %d-%ds (40%% 529), recovered %d-%ds",
        at.outage(), at.outage(), at.overload(), at.overload(), at.recovery(), at.recovery(), at.end());
  }
}
