package dev.levee.gateway.tier;

import dev.levee.core.tier.Priority;
import dev.levee.core.tier.Tier;
import dev.levee.core.tier.TierTransition;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A feature's tier as a person sees it: the tier evaluation reached for each configured alias the
 * feature is used with (the worst of them is "the feature's tier"; names no alias names are reported
 * apart, {@link TierBoard#otherModelsTier}), and a force an operator may put on
 * the whole feature for a drill (at most 24 h, checked by the admin endpoint). While a force
 * lasts every request of the feature gets the forced tier. Thread-safe.
 */
public final class FeatureTier {

  private final String name;
  private final Priority priority;
  private final Ticker ticker;
  private final Supplier<Tier> evaluated;
  private final Consumer<TierTransition> transitions;
  private final Object lock = new Object();
  private Tier forced; // null when not forced
  private long forcedUntil;
  private String forceReason; // the force's own, replaced by every force

  FeatureTier(String name, Priority priority, Ticker ticker, Supplier<Tier> evaluated,
      Consumer<TierTransition> transitions) {
    this.name = Objects.requireNonNull(name, "name");
    this.priority = Objects.requireNonNull(priority, "priority");
    this.ticker = ticker;
    this.evaluated = evaluated;
    this.transitions = transitions;
  }

  public String name() {
    return name;
  }

  public Priority priority() {
    return priority;
  }

  /** The forced tier while a force lasts, else null. */
  public Tier forced() {
    TierTransition ended = null;
    Tier pinned;
    synchronized (lock) {
      if (forced != null && ticker.nanos() - forcedUntil >= 0) {
        Tier back = evaluated.get();
        if (back != forced) {
          ended = new TierTransition(name, forced, back, "force to " + forced + " expired, back to evaluated " + back,
              ticker.nanos());
        }
        forced = null;
      }
      pinned = forced;
    }
    if (ended != null) {
      transitions.accept(ended);
    }
    return pinned;
  }

  /** The feature's tier: the forced one, else the worst any of its configured aliases is at. */
  public Tier current() {
    Tier pinned = forced();
    return pinned != null ? pinned : evaluated.get();
  }

  /**
   * Why the feature is forced ({@code "forced to T2 for 600 s"}), the last force's words: forcing
   * the tier already forced replaces them and the force's end (newcomer trial: the first force's
   * reason stayed); null when not forced.
   */
  public String forceReason() {
    synchronized (lock) {
      return forced == null ? null : forceReason;
    }
  }

  /** Time left on a force; zero when none. */
  public Duration forcedRemaining() {
    synchronized (lock) {
      return forced == null ? Duration.ZERO : Duration.ofNanos(Math.max(0, forcedUntil - ticker.nanos()));
    }
  }

  /**
   * Pins every request of the feature to {@code tier} for {@code duration}, replacing any earlier
   * force.
   *
   * @param duration positive
   */
  public void force(Tier tier, Duration duration) {
    Objects.requireNonNull(tier, "tier");
    if (!duration.isPositive()) throw new IllegalArgumentException("force duration must be positive, was " + duration);
    Tier before = current();
    String reason = "forced to " + tier + " for " + duration.toSeconds() + " s";
    synchronized (lock) {
      forced = tier;
      forcedUntil = ticker.nanos() + duration.toNanos();
      forceReason = reason;
    }
    if (before != tier) {
      transitions.accept(new TierTransition(name, before, tier, reason, ticker.nanos()));
    }
  }

  /** Ends a force early; nothing happens when none is active. */
  public void clearForce() {
    Tier was;
    synchronized (lock) {
      was = forced;
      forced = null;
    }
    Tier back = evaluated.get();
    if (was != null && was != back) {
      transitions.accept(new TierTransition(name, was, back, "force to " + was + " cleared, back to evaluated " + back,
          ticker.nanos()));
    }
  }
}
