package dev.levee.core.tier;

import dev.levee.core.sli.SliSnapshot;
import dev.levee.core.slo.BurnRates;
import dev.levee.core.slo.SloTracker;
import java.util.Objects;

/**
 * What the {@link TierDecider} looks at: one reading of a feature's SLIs and error-budget burn.
 *
 * @param p99Millis 99th percentile latency of successful calls over the SLI window, ms (time to
 *     first token for streams, total time for JSON); 0 when there were none
 * @param serverErrorShare share of calls failed by the target (5xx, 529, timeouts), 0..1
 * @param rateLimitedShare share of calls answered 429, 0..1
 * @param requests calls behind the shares (the SLI window's {@link SliSnapshot#total()})
 * @param burn1h error-budget burn over the last hour
 * @param burn5m error-budget burn over the last 5 minutes
 * @param burnRequests calls behind {@code burn5m}; the burn rule needs enough of them
 */
public record SliReading(
    double p99Millis,
    double serverErrorShare,
    double rateLimitedShare,
    long requests,
    double burn1h,
    double burn5m,
    long burnRequests) {

  public SliReading {
    check("p99Millis", p99Millis, Double.MAX_VALUE);
    check("serverErrorShare", serverErrorShare, 1);
    check("rateLimitedShare", rateLimitedShare, 1);
    check("burn1h", burn1h, Double.MAX_VALUE);
    check("burn5m", burn5m, Double.MAX_VALUE);
    if (requests < 0) throw new IllegalArgumentException("requests must be non-negative: " + requests);
    if (burnRequests < 0) throw new IllegalArgumentException("burnRequests must be non-negative: " + burnRequests);
  }

  /** A reading with no traffic at all. */
  public static final SliReading QUIET = new SliReading(0, 0, 0, 0, 0, 0, 0);

  /** Reads a sliding-window snapshot and the tracker's burn rates. */
  public static SliReading of(SliSnapshot snapshot, SloTracker slo) {
    return of(snapshot, slo.burnRates());
  }

  /** Combines a sliding-window snapshot with burn rates read earlier. */
  public static SliReading of(SliSnapshot snapshot, BurnRates burn) {
    Objects.requireNonNull(snapshot, "snapshot");
    Objects.requireNonNull(burn, "burn");
    return new SliReading(snapshot.p99Millis(), snapshot.serverErrorRate(), snapshot.rateLimitedRate(),
        snapshot.total(), burn.burn1h(), burn.burn5m(), burn.requests5m());
  }

  /** The burn part of this reading. */
  public BurnRates burnRates() {
    return new BurnRates(burn1h, burn5m, burnRequests);
  }

  private static void check(String name, double value, double max) {
    if (!(value >= 0 && value <= max)) {
      throw new IllegalArgumentException(name + " must be in [0, " + max + "], was " + value);
    }
  }
}
