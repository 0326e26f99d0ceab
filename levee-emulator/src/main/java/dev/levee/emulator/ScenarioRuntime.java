package dev.levee.emulator;

import java.time.Duration;

/**
 * A {@link Scenario} being played: which phase covers a request and whether its rate draw fails
 * it. Thread-safe; draws are sequential, so a given order of requests gives the same outcomes.
 */
final class ScenarioRuntime {

  /** The verdict for one request: the covering phase (or null) and whether it fails the request. */
  record Verdict(Scenario.Phase phase, boolean fails) {
    static final Verdict NONE = new Verdict(null, false);
  }

  private Scenario scenario;
  private Prng random;

  ScenarioRuntime(Scenario scenario) {
    this.scenario = scenario;
    this.random = new Prng(scenario == null ? 0 : scenario.seed());
  }

  synchronized Verdict decide(String model, Duration elapsed) {
    if (scenario == null) {
      return Verdict.NONE;
    }
    for (Scenario.Phase phase : scenario.phases()) {
      if (phase.covers(model, elapsed)) {
        boolean fails = phase.status() != 200 && (phase.rate() >= 1 || random.nextDouble() < phase.rate());
        return new Verdict(phase, fails);
      }
    }
    return Verdict.NONE;
  }

  /**
   * Whether a phase names {@code model}: exactly, or by a prefix ending in {@code *} ({@code
   * claude-*}); a phase for every model ({@code *}) names none.
   */
  synchronized boolean names(String model) {
    if (scenario == null) {
      return false;
    }
    for (Scenario.Phase phase : scenario.phases()) {
      String named = phase.model();
      if (named.equals(model) || (named.length() > 1 && named.endsWith("*")
          && model.startsWith(named.substring(0, named.length() - 1)))) {
        return true;
      }
    }
    return false;
  }

  /** Plays {@code next} (null: none) from now on, its draws from the start. */
  synchronized void replace(Scenario next) {
    scenario = next;
    reset();
  }

  /** Restarts the draw sequence (scenario time restarts with the emulator's epoch). */
  synchronized void reset() {
    random = new Prng(scenario == null ? 0 : scenario.seed());
  }
}
