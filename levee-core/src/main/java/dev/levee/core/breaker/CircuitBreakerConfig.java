package dev.levee.core.breaker;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Immutable settings of a {@link CircuitBreaker}.
 *
 * @param failures failures inside {@code window} that open the circuit (at least 1)
 * @param window the sliding window in which failures are counted; older failures age out
 * @param openFor how long the circuit stays OPEN before a trial call is admitted
 * @param halfOpenTrials trial calls allowed in flight at once while HALF_OPEN (default 1)
 * @param closeAfter consecutive successful trials that close the circuit (default 2)
 * @param failureRate the share of the calls settled in {@code window} that must have failed too,
 *     in (0, 1] (default 0.1, Polly's): {@code failures} is then the fewest failures to judge
 *     from. A higher share delays the opening at an outage's start by the window's recent
 *     successes (the weekly drill's 429 storm: 10 s at 0.1, 39 s at 0.5)
 */
public record CircuitBreakerConfig(
    int failures, Duration window, Duration openFor, int halfOpenTrials, int closeAfter, double failureRate) {

  /** The default {@code failureRate}: a tenth of the window's calls (Polly's default failure ratio). */
  public static final double DEFAULT_FAILURE_RATE = 0.1;

  /** Profile {@code default}: 5 failures in 30 s, open for 30 s. */
  public static final CircuitBreakerConfig DEFAULT = of(5, Duration.ofSeconds(30), Duration.ofSeconds(30));

  private static final Map<String, CircuitBreakerConfig> PROFILES = Map.of(
      "default", DEFAULT,
      "batch", of(3, Duration.ofSeconds(60), Duration.ofSeconds(120)),
      "interactive", of(7, Duration.ofSeconds(30), Duration.ofSeconds(30)),
      "admin", of(10, Duration.ofSeconds(60), Duration.ofSeconds(60)));

  public CircuitBreakerConfig {
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(openFor, "openFor");
    if (failures < 1) throw new IllegalArgumentException("failures must be at least 1, was " + failures);
    if (!window.isPositive()) throw new IllegalArgumentException("window must be positive, was " + window);
    if (!openFor.isPositive()) throw new IllegalArgumentException("open-for must be positive, was " + openFor);
    if (halfOpenTrials < 1) throw new IllegalArgumentException("half-open-trials must be at least 1, was " + halfOpenTrials);
    if (closeAfter < 1) throw new IllegalArgumentException("close-after must be at least 1, was " + closeAfter);
    if (!(failureRate > 0 && failureRate <= 1)) {
      throw new IllegalArgumentException("failure-rate must be a share in (0, 1], e.g. 0.5, was " + failureRate);
    }
  }

  /** A config with the default {@code failureRate} (0.1). */
  public CircuitBreakerConfig(int failures, Duration window, Duration openFor, int halfOpenTrials, int closeAfter) {
    this(failures, window, openFor, halfOpenTrials, closeAfter, DEFAULT_FAILURE_RATE);
  }

  /** A config with the default {@code halfOpenTrials} (1) and {@code closeAfter} (2). */
  public static CircuitBreakerConfig of(int failures, Duration window, Duration openFor) {
    return new CircuitBreakerConfig(failures, window, openFor, 1, 2);
  }

  /**
   * A named profile: {@code default} (5 / 30 s / open 30 s), {@code batch} (3 / 60 s / 120 s),
   * {@code interactive} (7 / 30 s / 30 s), {@code admin} (10 / 60 s / 60 s).
   *
   * @throws IllegalArgumentException for an unknown name, listing the known ones
   */
  public static CircuitBreakerConfig profile(String name) {
    CircuitBreakerConfig config = PROFILES.get(name.toLowerCase(Locale.ROOT));
    if (config == null) {
      throw new IllegalArgumentException(
          "unknown breaker profile '" + name + "' (known: " + String.join(", ", profileNames()) + ")");
    }
    return config;
  }

  /** The names accepted by {@link #profile(String)}. */
  public static Set<String> profileNames() {
    return new java.util.TreeSet<>(PROFILES.keySet());
  }

  public CircuitBreakerConfig withHalfOpenTrials(int trials) {
    return new CircuitBreakerConfig(failures, window, openFor, trials, closeAfter, failureRate);
  }

  public CircuitBreakerConfig withCloseAfter(int successes) {
    return new CircuitBreakerConfig(failures, window, openFor, halfOpenTrials, successes, failureRate);
  }

  public CircuitBreakerConfig withFailureRate(double share) {
    return new CircuitBreakerConfig(failures, window, openFor, halfOpenTrials, closeAfter, share);
  }
}
