package dev.levee.gateway.cluster;

import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tells a lease taken over from a lease kept, per feature. A lease renewed in Redis was this
 * replica's without a break: kept ({@link SharedTiers.Lease#HELD}). A lease taken now (it was
 * free), or evaluated alone while Redis is away, is kept only when this replica held it within the
 * last lease period — no other replica can have held it since, so its own evaluations are the
 * latest (Redis restarting empty, or a failover, lets the live holder take its own lease anew: it
 * keeps its state rather than adopt the T0 an empty Redis reads as); otherwise it is taken over
 * ({@link SharedTiers.Lease#TAKEN}): another replica may have decided meanwhile. Thread-safe.
 */
final class LeaseTurns {

  private final Ticker ticker;
  private final long leaseNanos;
  private final Map<String, Long> lastHeld = new ConcurrentHashMap<>(); // ticker nanos; absent: not held

  LeaseTurns(Ticker ticker, Duration lease) {
    this.ticker = ticker;
    this.leaseNanos = lease.toNanos();
  }

  /** Redis renewed this replica's lease of {@code feature}. */
  SharedTiers.Lease renewed(String feature) {
    lastHeld.put(feature, ticker.nanos());
    return SharedTiers.Lease.HELD;
  }

  /** This replica took {@code feature}'s free lease in Redis, or evaluates it alone (Redis away). */
  SharedTiers.Lease taken(String feature) {
    long now = ticker.nanos();
    Long before = lastHeld.put(feature, now);
    return before != null && now - before < leaseNanos ? SharedTiers.Lease.HELD : SharedTiers.Lease.TAKEN;
  }

  /** Whether this replica took or renewed {@code feature}'s lease within the last lease period. */
  boolean holds(String feature) {
    Long at = lastHeld.get(feature);
    return at != null && ticker.nanos() - at < leaseNanos;
  }

  /** Another replica holds {@code feature}'s lease. */
  SharedTiers.Lease elsewhere(String feature) {
    lastHeld.remove(feature);
    return SharedTiers.Lease.ELSEWHERE;
  }
}
