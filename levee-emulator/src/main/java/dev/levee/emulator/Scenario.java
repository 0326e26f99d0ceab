package dev.levee.emulator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A scripted incident: timed phases during which requests for some models fail or slow down.
 * Phase times are relative to the emulator's start or last reset, on its ticker.
 *
 * <p>For each {@code /v1/messages} request that passes validation, the first phase (in list
 * order) that covers the model and the current time applies: with a failing {@link
 * Phase#status()} the request fails with that status with probability {@link Phase#rate()}
 * (seeded by {@link #seed()}; the draw sequence restarts on reset); its {@code ttft} and {@code
 * deltaDelay}, when set, replace the emulator's timing whether or not the request fails. Model
 * faults ({@code emu-*}) apply only to requests a phase did not fail. Immutable; the YAML form is
 * described in the module README and read by {@link #load(Path)}.
 *
 * @param seed the seed of the rate draws
 * @param phases the phases, first match wins
 */
public record Scenario(long seed, List<Phase> phases) {

  /** Statuses a phase may impose: 200 (no failure, latency only), 429, 500, 503 and 529. */
  public static final Set<Integer> STATUSES = Set.of(200, 429, 500, 503, 529);

  public Scenario {
    phases = List.copyOf(phases);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads a YAML scenario file.
   *
   * @throws ScenarioException naming the file, line and key of the first problem
   * @throws IOException when the file cannot be read
   */
  public static Scenario load(Path file) throws IOException {
    return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
  }

  /**
   * Reads a scenario from YAML text.
   *
   * @param source a name for messages, e.g. the file name
   * @throws ScenarioException naming the line and key of the first problem
   */
  public static Scenario parse(String yaml, String source) {
    return ScenarioParser.parse(yaml, source);
  }

  /**
   * One phase.
   *
   * @param model the model it covers: a name, {@code *} for all, or a prefix ending in {@code *}
   *     ({@code claude-*})
   * @param from start, inclusive, since start/reset
   * @param to end, exclusive, or null for open-ended
   * @param status 200, 429, 500, 503 or 529
   * @param rate the probability (0..1) that a covered request fails with {@code status}
   * @param retryAfter the {@code retry-after} a 429 carries (whole seconds, rounded up)
   * @param ttft time to first token for covered requests, or null to keep the emulator's
   * @param deltaDelay delay between deltas for covered requests, or null to keep the emulator's
   */
  public record Phase(String model, Duration from, Duration to, int status, double rate, Duration retryAfter,
      Duration ttft, Duration deltaDelay) {

    public Phase {
      Objects.requireNonNull(model, "model");
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(retryAfter, "retryAfter");
      if (from.isNegative() || (to != null && to.compareTo(from) <= 0)) {
        throw new IllegalArgumentException("a phase needs 0 <= from < to, was " + from + ".." + to);
      }
      if (!STATUSES.contains(status)) {
        throw new IllegalArgumentException("status must be one of 200, 429, 500, 503, 529, was " + status);
      }
      if (!(rate >= 0 && rate <= 1)) {
        throw new IllegalArgumentException("rate must be within 0..1, was " + rate);
      }
      if ((ttft != null && ttft.isNegative()) || (deltaDelay != null && deltaDelay.isNegative())
          || retryAfter.isNegative()) {
        throw new IllegalArgumentException("durations must not be negative");
      }
    }

    public static PhaseBuilder builder() {
      return new PhaseBuilder();
    }

    /** Whether this phase covers {@code modelName} at {@code elapsed} since start/reset. */
    public boolean covers(String modelName, Duration elapsed) {
      boolean named = model.equals("*") || model.equals(modelName)
          || (model.endsWith("*") && modelName.startsWith(model.substring(0, model.length() - 1)));
      return named && elapsed.compareTo(from) >= 0 && (to == null || elapsed.compareTo(to) < 0);
    }
  }

  /**
   * Builder of a {@link Phase}. Defaults: all models ({@code *}), from 0, open-ended, status 200,
   * rate 1, retry-after 1 s, emulator timing. Not thread-safe.
   */
  public static final class PhaseBuilder {
    private String model = "*";
    private Duration from = Duration.ZERO;
    private Duration to;
    private int status = 200;
    private double rate = 1.0;
    private Duration retryAfter = Duration.ofSeconds(1);
    private Duration ttft;
    private Duration deltaDelay;

    private PhaseBuilder() {}

    public PhaseBuilder model(String model) {
      this.model = model;
      return this;
    }

    public PhaseBuilder from(Duration from) {
      this.from = from;
      return this;
    }

    /** The end (exclusive); null for open-ended. */
    public PhaseBuilder to(Duration to) {
      this.to = to;
      return this;
    }

    public PhaseBuilder status(int status) {
      this.status = status;
      return this;
    }

    public PhaseBuilder rate(double rate) {
      this.rate = rate;
      return this;
    }

    public PhaseBuilder retryAfter(Duration retryAfter) {
      this.retryAfter = retryAfter;
      return this;
    }

    public PhaseBuilder ttft(Duration ttft) {
      this.ttft = ttft;
      return this;
    }

    public PhaseBuilder deltaDelay(Duration deltaDelay) {
      this.deltaDelay = deltaDelay;
      return this;
    }

    /** @throws IllegalArgumentException when a value is out of range */
    public Phase build() {
      return new Phase(model, from, to, status, rate, retryAfter, ttft, deltaDelay);
    }
  }

  /** Builder of a {@link Scenario}; seed 0 and no phases by default. Not thread-safe. */
  public static final class Builder {
    private long seed;
    private final List<Phase> phases = new ArrayList<>();

    private Builder() {}

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Appends a phase (earlier phases win where they overlap). */
    public Builder phase(Phase phase) {
      phases.add(Objects.requireNonNull(phase, "phase"));
      return this;
    }

    public Scenario build() {
      return new Scenario(seed, phases);
    }
  }
}
