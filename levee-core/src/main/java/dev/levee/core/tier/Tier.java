package dev.levee.core.tier;

/**
 * How much of a feature is served: the degradation ladder of a feature, from full service (T0)
 * to a static answer (T3). Declaration order is the order of degradation: a later constant is
 * "lower" (more degraded).
 */
public enum Tier {
  /** Full service: the whole fallback chain. */
  T0,
  /** Reduced: the feature's cheaper target, {@code max_tokens} capped. */
  T1,
  /** Cached: answer from the cache first; on a miss, generate at T1 and write back. */
  T2,
  /** Static: no upstream call; the static answer (fail-open) or a 503 (fail-closed). */
  T3;

  private static final Tier[] ALL = values();

  /** {@code steps} tiers lower, saturating at {@link #T3}; {@code steps} must be non-negative. */
  public Tier down(int steps) {
    if (steps < 0) throw new IllegalArgumentException("steps must be non-negative, was " + steps);
    return ALL[(int) Math.min(ALL.length - 1L, (long) ordinal() + steps)];
  }

  /** One tier higher, saturating at {@link #T0}. */
  public Tier up() {
    return ordinal() == 0 ? this : ALL[ordinal() - 1];
  }

  /** Whether this tier is more degraded than {@code other}. */
  public boolean isBelow(Tier other) {
    return ordinal() > other.ordinal();
  }

  /** The more degraded of the two. */
  public static Tier lowest(Tier a, Tier b) {
    return a.ordinal() >= b.ordinal() ? a : b;
  }
}
