package dev.levee.gateway.cluster;

import dev.levee.core.time.Ticker;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rate-limit cooldowns per target, shared by every replica, with the max rule: a stated wait
 * (429 {@code retry-after}) moves the end to {@code max(current end, now + wait)}; a cooldown is
 * never shortened, by any replica.
 *
 * <p>In Redis a cooldown is a key whose time to live is the time left, so it needs no clock
 * agreement and vanishes by itself. Reads come from a local copy ({@link SharedView}); a new or
 * longer cooldown is pushed to the other replicas by pub/sub. The replica also keeps every
 * cooldown it learns in its own table, so {@link #remaining} is the longer of the two and stays
 * right while Redis is away. That table holds cooldowns that have not ended: an ended one leaves it
 * when read, or at the next sweep ({@link #SWEEP_EVERY}, run by a new cooldown), so targets clients
 * named once and never again do not pile up; and it holds at most {@link #MAX_LOCAL} (1,000, as
 * levee-core's own cooldowns) at once: past that, a new target cools through Redis only (while
 * Redis is away, not at all here, as levee-core ignores it too). Thread-safe.
 */
public final class SharedCooldowns {

  private static final LuaScript EXTEND = LuaScript.load("cooldown");

  /** Most targets kept in the local table: as many as levee-core's own cooldowns keep (1,000). */
  static final int MAX_LOCAL = dev.levee.core.cooldown.RateLimitCooldowns.MAX_TARGETS;

  /** At most one sweep of ended cooldowns per this (ticker time). */
  static final Duration SWEEP_EVERY = Duration.ofMinutes(1);

  /** The shared time left, read at {@code readAt} (ticker nanos). */
  record View(long millis, long readAt) {}

  private final RedisLink link;
  private final SharedView<View> views;
  private final Ticker ticker;
  private final Map<String, Long> localUntil = new ConcurrentHashMap<>();
  private volatile long nextSweep; // ticker nanos

  SharedCooldowns(RedisLink link, SharedView<View> views, Ticker ticker) {
    this.link = link;
    this.views = views;
    this.ticker = ticker;
    this.nextSweep = ticker.nanos();
  }

  /**
   * Starts or extends {@code target}'s cooldown by the upstream's stated wait (max rule).
   *
   * @param wait the stated wait (positive; zero or negative is ignored)
   */
  public void coolDown(String target, Duration wait) {
    if (!wait.isPositive()) {
      return;
    }
    long now = ticker.nanos();
    sweep(now);
    if (!localUntil.containsKey(target) && localUntil.size() >= MAX_LOCAL) {
      localUntil.values().removeIf(until -> until - now <= 0);
    }
    if (localUntil.containsKey(target) || localUntil.size() < MAX_LOCAL) { // past the bound: Redis's only
      localUntil.merge(target, now + wait.toNanos(), (a, b) -> a - b >= 0 ? a : b);
    }
    if (link.tryShared()) {
      String viewKey = viewKey(target);
      link.<Long>eval(EXTEND, ScriptOutputType.INTEGER, new String[] {link.key(viewKey)},
              Long.toString(Math.max(1, wait.toMillis())), link.channel(), viewKey)
          .ifPresent(left -> views.put(viewKey, new View(left, ticker.nanos())));
    }
  }

  /** Time left of {@code target}'s cooldown as every replica sees it; zero when none. */
  public Duration remaining(String target) {
    long now = ticker.nanos();
    Long until = localUntil.get(target);
    long localLeft = until == null ? 0 : Math.max(0, until - now);
    if (until != null && localLeft == 0) {
      localUntil.remove(target, until); // bounded: ended cooldowns leave the table
    }
    long sharedLeft = 0;
    if (link.tryShared()) {
      // PTTL answers -2 (no key) or -1 (no expiry) for "no cooldown"
      Optional<View> view = views.get(viewKey(target),
          k -> link.<Long>call(c -> c.pttl(link.key(k))).map(ms -> new View(Math.max(0, ms), ticker.nanos())));
      long after = ticker.nanos(); // not `now`: the read itself takes time
      sharedLeft = view.map(v -> v.millis() == 0 ? 0 : Math.max(0, v.readAt() + v.millis() * 1_000_000 - after)).orElse(0L);
    }
    return Duration.ofNanos(Math.max(localLeft, sharedLeft));
  }

  /** Drops every ended cooldown from the local table, at most once a {@link #SWEEP_EVERY}. */
  private void sweep(long now) {
    long due = nextSweep;
    if (now - due >= 0) {
      nextSweep = now + SWEEP_EVERY.toNanos();
      localUntil.values().removeIf(until -> until - now <= 0);
    }
  }

  /** Cooldowns in the local table (tests). */
  int localCount() {
    return localUntil.size();
  }

  private static String viewKey(String target) {
    return "cooldown:{" + target + "}";
  }
}
