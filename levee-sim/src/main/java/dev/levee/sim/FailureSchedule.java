package dev.levee.sim;

import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The upstream of the published retry-budget study: it fails each call independently with a
 * probability that depends only on time, never on load.
 *
 * <p>{@code failRate(t)} is 1 before {@code outageEnd} (a full outage), {@code degradedFailRate}
 * before {@code degradedEnd}, and 0 afterwards. Each call draws one number {@code u} from the
 * run's generator and succeeds iff {@code u ≥ failRate(t)}, drawing even when the outcome is
 * certain, so the generator's sequence matches the study's.
 *
 * @param outageEnd end of the outage, in seconds (study: 20)
 * @param degradedEnd end of the degraded period, in seconds (study: 120)
 * @param degradedFailRate failure probability while degraded, in {@code [0, 1]} (study: 0.4)
 * @param random the run's generator, shared with the retry policy's jitter
 */
public record FailureSchedule(
    double outageEnd, double degradedEnd, double degradedFailRate, RandomGenerator random)
    implements Upstream {

  public FailureSchedule {
    Objects.requireNonNull(random, "random");
    if (!(degradedFailRate >= 0 && degradedFailRate <= 1)) {
      throw new IllegalArgumentException("degraded fail rate must be in [0, 1], was " + degradedFailRate);
    }
  }

  /** The failure probability of a call made at {@code time} seconds. */
  public double failRate(double time) {
    return time < outageEnd ? 1.0 : time < degradedEnd ? degradedFailRate : 0.0;
  }

  @Override
  public boolean call(double time) {
    return random.nextDouble() >= failRate(time);
  }
}
