package dev.levee.gateway.cluster;

import dev.levee.core.tier.Tier;
import dev.levee.core.time.Ticker;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Tier decisions per feature, shared so that every replica answers in the same tier.
 *
 * <ul>
 *   <li><b>One evaluator.</b> A replica evaluates a feature only while it holds the feature's
 *       lease ({@link #lease}): {@code SET NX PX}, renewed by the holder on every call, taken
 *       over by another replica when the holder stops renewing (it died, or lost Redis). The taker
 *       starts from the tiers the holder {@linkplain #published published} ({@link LeaseTurns}).
 *   <li><b>Posted once.</b> The evaluator {@link #publish publishes} its decision after every
 *       evaluation; only a change is answered with its previous tier, so a transition is posted
 *       (webhook, log, metric) by exactly one replica, once.
 *   <li><b>Bounded.</b> A decided tier is the key {@code tier:{feature/alias}} only while it is
 *       below T0 (T0 is no key), with a time to live of {@value #DECIDED_TTL_LEASES} leases that
 *       every publication renews; so the keys of client-chosen model names do not pile up, and a
 *       decision no replica evaluates any more ends by itself. A replica keeps a local fallback
 *       only of tiers below T0, and {@link #forget forgets} a scope it dropped.
 *   <li><b>Causes.</b> With a decided tier the evaluator publishes why the scope is in it (the reason
 *       of the transition that put it there: {@code tier-cause:{feature/alias}}, living as long), so a
 *       replica without the lease gives the same {@code tier_cause} as the holder ({@link #cause}).
 *   <li><b>Names.</b> A scope's name is {@code feature/alias} ({@link #scopeName}), with {@code %} and
 *       {@code /} in the feature's name escaped ({@code %25}, {@code %2F}); a feature's own keys
 *       ({@code tier-lease:}, {@code tier-forced:}) escape it too. So the first {@code /} of a name
 *       ends the feature: feature {@code a}'s keys never match feature {@code a/b}'s, nor does a
 *       scope's name ever read as a feature's.
 *   <li><b>Forced tiers</b> ({@link #force}) are written with their duration as time to live and
 *       win over the decided tier on every replica.
 *   <li><b>Propagation.</b> Every write is pushed by pub/sub; reads come from a local copy at most
 *       {@link ClusterConfig#viewTtl()} old.
 * </ul>
 *
 * <p>While Redis is away, each replica evaluates every feature itself ({@link #evaluates} is
 * true) and reads its own decisions and forced tiers, starting from the last shared tier it read. Redis restarting empty reads as T0 until the
 * evaluator publishes again. Thread-safe.
 */
public final class SharedTiers {

  private static final LuaScript LEASE = LuaScript.load("lease");
  private static final LuaScript PUBLISH = LuaScript.load("tier-publish");
  private static final LuaScript VIEW = LuaScript.load("tier-view");
  private static final LuaScript FORCE = LuaScript.load("tier-force");

  /**
   * How many leases a decided tier below T0 lives in Redis unless published again: every evaluation
   * publishes it (a third of a lease), so it ends only when no replica evaluates that scope any more
   * (10 leases: 150 s with the default {@code tiers.evaluate-every} of 5 s).
   */
  static final int DECIDED_TTL_LEASES = 10;

  /** What {@link #lease} found: who evaluates the feature now. */
  public enum Lease {
    /** Another replica holds the lease: this one does not evaluate. */
    ELSEWHERE,
    /**
     * This replica evaluates, and did not within the last lease: it took over (the holder died or
     * stalled, or this replica's first evaluation, or Redis went away). It starts from the published
     * tiers, not from its own state: that is another evaluator's past, or none.
     */
    TAKEN,
    /** This replica evaluates, as it did within the last lease: its own state is the latest. */
    HELD
  }

  /**
   * A feature's tiers as the cluster sees them; {@code forcedUntil} is the force's end in ticker
   * nanos, read from its key's time to live (unused without a force; "now" when Redis did not say);
   * {@code cause} why a scope is in its decided tier, null when none was published.
   */
  record View(Tier decided, Tier forced, long forcedUntil, String cause) {
    Tier effective() {
      return forced != null ? forced : decided;
    }
  }

  /**
   * A forced tier kept locally, with its end in ticker nanos; {@code shared} once Redis holds it
   * (until then it is written again as soon as the link answers).
   */
  private record Forced(Tier tier, long until, boolean shared) {}

  private final RedisLink link;
  private final SharedView<View> views;
  private final Ticker ticker;
  private final String replica;
  private final Duration lease;
  private final String decidedTtlMillis;
  private final Map<String, Tier> localDecided = new ConcurrentHashMap<>(); // below T0 only: absent is T0
  private final Map<String, Forced> localForced = new ConcurrentHashMap<>();
  private final LeaseTurns leases;
  private final Set<String> unforcePending = ConcurrentHashMap.newKeySet(); // lifted while Redis was away
  // one writer of forces and lifts at a time: the flusher wrote a force (or lift) again while its
  // own call was still writing it (review: two SETs and two PUBLISHes for one force)
  private final ReentrantLock writing = new ReentrantLock();

  /**
   * @param replica this replica's id, unique in the cluster
   * @param lease how long an evaluator keeps a feature without renewing (a few evaluation periods)
   */
  SharedTiers(RedisLink link, SharedView<View> views, Ticker ticker, String replica, Duration lease) {
    this.link = link;
    this.views = views;
    this.ticker = ticker;
    this.replica = replica;
    this.lease = lease;
    this.decidedTtlMillis = Long.toString(lease.multipliedBy(DECIDED_TTL_LEASES).toMillis());
    this.leases = new LeaseTurns(ticker, lease);
  }

  /** Whether this replica evaluates {@code feature} now: {@link #lease} is not {@link Lease#ELSEWHERE}. */
  public boolean evaluates(String feature) {
    return lease(feature) != Lease.ELSEWHERE;
  }

  /**
   * Takes or renews {@code feature}'s lease, and says whether this replica evaluates it now and
   * whether it just took over. Call it before every evaluation; while Redis is away each replica
   * evaluates alone ({@link Lease#TAKEN} at its first such evaluation, then {@link Lease#HELD}).
   * A taker {@linkplain #published starts from the published tiers}.
   */
  public Lease lease(String feature) {
    if (!link.tryShared()) {
      return leases.taken(feature);
    }
    // 1: renewed (this replica's without a break); 2: taken now; 0: another replica's; empty: Redis away
    long answer = link.<Long>eval(LEASE, ScriptOutputType.INTEGER,
        new String[] {link.key("tier-lease:{" + id(feature) + "}")}, replica, Long.toString(lease.toMillis())).orElse(2L);
    return answer == 1 ? leases.renewed(feature) : answer == 2 ? leases.taken(feature) : leases.elsewhere(feature);
  }

  /**
   * Whether this replica holds {@code feature}'s tier lease now, as its own {@link #lease} calls
   * left it — taken or renewed within the last lease period (true), or not (false: another replica
   * holds it, or this one has not evaluated the feature lately) — read without taking or renewing
   * it and without a Redis round trip (for {@code /admin/tiers} and {@code /health}); empty while
   * Redis is away, when every replica evaluates alone.
   */
  public Optional<Boolean> holds(String feature) {
    return link.shared() ? Optional.of(leases.holds(feature)) : Optional.empty();
  }

  /**
   * The aliases of {@code feature} the cluster holds a decided tier for (below T0: each a key {@code
   * tier:{feature/alias}}, {@link #scopeName}; not those of a feature whose name starts with {@code
   * feature/}), at most {@code max}, in no particular order; empty while Redis is away.
   * It scans the key space (SCAN, 1,000 keys a page) until it has {@code max}: for a replica taking
   * over the feature's lease ({@code LeaseTakeover}), never the request path.
   */
  public List<String> publishedAliases(String feature, int max) {
    List<String> out = new ArrayList<>();
    if (max <= 0 || !link.tryShared()) {
      return out;
    }
    String prefix = link.key("tier:{" + id(feature) + "/");
    ScanArgs match = ScanArgs.Builder.matches(escapeGlob(prefix) + "*}").limit(1000);
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      ScanCursor from = cursor;
      Optional<KeyScanCursor<String>> page = link.call(c -> c.scan(from, match));
      if (page.isEmpty()) {
        return out; // Redis went away midway: what was found
      }
      for (String key : page.get().getKeys()) {
        if (out.size() < max && key.startsWith(prefix) && key.length() > prefix.length() + 1) {
          out.add(key.substring(prefix.length(), key.length() - 1));
        }
      }
      cursor = page.get();
    } while (!cursor.isFinished() && out.size() < max);
    return out;
  }

  private static String escapeGlob(String text) {
    return text.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
  }

  /**
   * The name of {@code feature}'s scope of {@code alias} in the shared tiers, for {@link #publish},
   * {@link #published}, {@link #current}, {@link #cause} and {@link #forget}: {@code feature/alias}
   * with {@code %} and {@code /} in the feature's name escaped ({@code %25}, {@code %2F}; names
   * without them are unchanged), so the first {@code /} ends the feature. The alias is kept as it is
   * (a model name a client chose may hold a {@code /}).
   */
  public static String scopeName(String feature, String alias) {
    return id(feature) + "/" + alias;
  }

  /** {@code feature} as its keys name it: {@code %} and {@code /} escaped, so it holds no {@code /}. */
  private static String id(String feature) {
    return feature.indexOf('%') < 0 && feature.indexOf('/') < 0 ? feature
        : feature.replace("%", "%25").replace("/", "%2F");
  }

  /**
   * The tier the cluster published for {@code feature} (a scope, {@code feature/alias}): Redis's
   * decided tier, read now (T0 when there is no key); while Redis is away, the last one this replica
   * read. A force is not a decided tier and is not included.
   */
  public Tier published(String feature) {
    if (link.tryShared()) {
      Optional<View> view = read(feature);
      if (view.isPresent()) {
        views.invalidate(viewKey(feature));
        return view.get().decided();
      }
    }
    return localDecided.getOrDefault(feature, Tier.T0);
  }

  /** Publishes the evaluator's decision for {@code feature} without a cause: {@link #publish(String, Tier, String)}. */
  Optional<Tier> publish(String feature, Tier tier) {
    return publish(feature, tier, null);
  }

  /**
   * Publishes the evaluator's decision for {@code feature} (a scope, {@link #scopeName}), and why.
   * The cause is stored when this call changes the shared tier (its transition's reason) and kept
   * otherwise, so a holder that took over and adopted the published tier (no transition of its own)
   * leaves the previous holder's cause in place; at T0 there is none.
   *
   * @param cause the reason of the transition that put the scope in {@code tier}, or null when this
   *     replica knows none
   * @return the previous tier when this call changed the shared tier (post the transition), else
   *     empty (nothing changed, or another replica already posted it)
   */
  public Optional<Tier> publish(String feature, Tier tier, String cause) {
    Tier before = remember(feature, tier);
    Tier localBefore = before == null ? Tier.T0 : before;
    if (!link.tryShared()) {
      return localBefore == tier ? Optional.empty() : Optional.of(localBefore);
    }
    String viewKey = viewKey(feature);
    Optional<String> answer = link.eval(PUBLISH, ScriptOutputType.VALUE,
        new String[] {link.key("tier:{" + feature + "}"), link.key("tier-cause:{" + feature + "}")}, tier.name(),
        link.channel(), viewKey, decidedTtlMillis, cause == null ? "" : cause);
    if (answer.isEmpty()) { // Redis away: this replica decides alone
      return localBefore == tier ? Optional.empty() : Optional.of(localBefore);
    }
    views.invalidate(viewKey);
    return answer.filter(previous -> !previous.isEmpty()).map(Tier::valueOf);
  }

  /**
   * Forces {@code feature} to {@code tier} on every replica for {@code duration} (admin API). A
   * force set while Redis is away holds on this replica and is written for the others once the
   * link answers again ({@link #writePending}).
   *
   * @return whether the force reached the shared state (false: this replica only, for now)
   */
  public boolean force(String feature, Tier tier, Duration duration) {
    writing.lock();
    try {
      unforcePending.remove(feature);
      Forced mine = new Forced(tier, ticker.nanos() + duration.toNanos(), false);
      localForced.put(feature, mine);
      return write(feature, mine);
    } finally {
      writing.unlock();
    }
  }

  /**
   * Ends a forced tier on every replica, whichever replica set it. Lifted while Redis is away, the
   * force ends on this replica at once and in Redis once the link answers again ({@link #writePending}).
   */
  public void unforce(String feature) {
    writing.lock();
    try {
      localForced.remove(feature);
      unforcePending.add(feature);
      lift(feature);
    } finally {
      writing.unlock();
    }
  }

  /** Writes a local force to Redis (its remaining time as TTL); marks it shared on success. */
  private boolean write(String feature, Forced force) {
    long left = force.until() - ticker.nanos();
    if (left <= 0) {
      localForced.remove(feature, force);
      return false;
    }
    boolean written = link.tryShared()
        && writeForce(feature, force.tier().name(), Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
    views.invalidate(viewKey(id(feature)));
    if (written) {
      localForced.replace(feature, force, new Forced(force.tier(), force.until(), true));
    }
    return written;
  }

  /** Deletes the shared force; forgets the pending lift once Redis confirmed it. */
  private void lift(String feature) {
    if (link.tryShared() && writeForce(feature, "", 0)) {
      unforcePending.remove(feature);
    }
    views.invalidate(viewKey(id(feature)));
  }

  /**
   * Sets ({@code tier} for {@code ttlMillis}) or lifts ({@code tier} empty) the shared force and
   * publishes the change, in one round trip; whether Redis answered.
   */
  private boolean writeForce(String feature, String tier, long ttlMillis) {
    String id = id(feature);
    return link.<Long>eval(FORCE, ScriptOutputType.INTEGER, new String[] {link.key("tier-forced:{" + id + "}")},
        tier, Long.toString(ttlMillis), link.channel(), viewKey(id)).isPresent();
  }

  /**
   * Writes what this replica changed while Redis was away (forces and lifts), so the shared state
   * becomes the operator's last word; {@link Cluster} calls it every 100 ms, off the request path.
   * Costs nothing when nothing is pending.
   */
  void writePending() {
    if (!unforcePending.isEmpty() || localForced.values().stream().anyMatch(f -> !f.shared())) {
      if (!link.tryShared() || !writing.tryLock()) {
        return; // a force or lift is being written: it writes its own, and this runs again in 100 ms
      }
      try {
        unforcePending.forEach(this::lift);
        localForced.forEach((feature, mine) -> {
          if (!mine.shared()) {
            write(feature, mine);
          }
        });
      } finally {
        writing.unlock();
      }
    }
  }

  /**
   * The tier {@code feature} is forced to on any replica, if a force lasts. While Redis answers,
   * the shared state decides: a force lifted (or expired) there is over here too, whichever
   * replica set or lifted it; while Redis is away, this replica's own force decides.
   */
  public Optional<Tier> forced(String feature) {
    if (link.tryShared()) {
      Forced mine = localForced.get(feature);
      if (mine != null && !mine.shared() && mine.until() - ticker.nanos() > 0) {
        return Optional.of(mine.tier()); // not written yet: this replica's operator had the last word
      }
      if (unforcePending.contains(feature)) {
        return Optional.empty();
      }
      Optional<View> view = view(id(feature));
      if (view.isPresent()) {
        Tier shared = view.get().forced();
        if (shared == null) {
          localForced.computeIfPresent(feature, (f, own) -> own.shared() ? null : own); // lifted elsewhere
        }
        return Optional.ofNullable(shared);
      }
    }
    Forced forced = localForced.get(feature);
    return forced != null && forced.until() - ticker.nanos() > 0 ? Optional.of(forced.tier()) : Optional.empty();
  }

  /**
   * Time left on the force {@link #forced} reports; zero when there is none. Shared, the force's
   * key carries its end as its time to live, so every replica shows the time left of a force set on
   * another (newcomer trial: another replica showed {@code forced_remaining_ms: 0} while the force
   * was in effect); this replica's own force not yet written, or set while Redis is away, counts
   * from its own end.
   */
  public Duration forcedRemaining(String feature) {
    if (forced(feature).isEmpty()) {
      return Duration.ZERO;
    }
    long now = ticker.nanos();
    Forced mine = localForced.get(feature);
    long until;
    if (mine != null && (!mine.shared() || !link.tryShared())) {
      until = mine.until();
    } else {
      until = view(id(feature)).filter(v -> v.forced() != null)
          .map(View::forcedUntil).orElse(mine == null ? now : mine.until());
    }
    return Duration.ofNanos(Math.max(0, until - now));
  }

  /** The tier {@code feature} is served in now: a forced tier, else the decided one (T0 if none). */
  public Tier current(String feature) {
    if (link.tryShared()) {
      Optional<View> view = view(feature);
      if (view.isPresent()) {
        return view.get().effective();
      }
    }
    Forced forced = localForced.get(feature);
    if (forced != null && forced.until() - ticker.nanos() > 0) {
      return forced.tier();
    }
    return localDecided.getOrDefault(feature, Tier.T0);
  }

  /**
   * {@link #current} for a scope this replica keeps no health of its own for (an alias it never
   * served): the cluster's tier while Redis answers, T0 while it is away. Nothing re-evaluates such a
   * scope here, so the last tier read would otherwise stand — and hold the scope's queued work — for
   * the whole outage, however the upstream fared.
   */
  public Tier currentIfShared(String feature) {
    return link.tryShared() ? current(feature) : Tier.T0;
  }

  /**
   * Why the scope {@code feature} ({@link #scopeName}) is in the tier the cluster published: the
   * reason of the transition that put it there, as its evaluator published it (e.g. {@code "alias
   * smart: error-budget burn 200.0x …: standard feature to T2, T0 -> T2"}), read from the same local
   * copy as {@link #current}. Null at T0, while Redis is away, or when none was published (a tier an
   * earlier release published, kept since by holders that adopted it).
   */
  public String cause(String feature) {
    if (!link.tryShared()) {
      return null;
    }
    return view(feature).map(View::cause).orElse(null);
  }

  /** The cluster's view of {@code name} (a scope, or a feature's escaped name), through the local copy. */
  private Optional<View> view(String name) {
    return views.get(viewKey(name), k -> read(name));
  }

  private Optional<View> read(String feature) {
    long now = ticker.nanos();
    // one round trip: both tiers, the force's time left (forced_remaining_ms on every replica) and the cause
    Optional<View> view = link.<List<String>>eval(VIEW, ScriptOutputType.MULTI,
        new String[] {link.key("tier:{" + feature + "}"), link.key("tier-forced:{" + feature + "}"),
            link.key("tier-cause:{" + feature + "}")})
        .map(values -> new View(
            values.get(0).isEmpty() ? Tier.T0 : Tier.valueOf(values.get(0)),
            values.get(1).isEmpty() ? null : Tier.valueOf(values.get(1)),
            now + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(values.get(2))),
            values.size() < 4 || values.get(3).isEmpty() ? null : values.get(3)));
    // keep the local fallback at the cluster's tier, so losing Redis does not change the answer
    view.ifPresent(v -> remember(feature, v.decided()));
    return view;
  }

  /** Keeps {@code tier} as the local fallback of {@code feature} (T0 as no entry); the one before. */
  private Tier remember(String feature, Tier tier) {
    return tier == Tier.T0 ? localDecided.remove(feature) : localDecided.put(feature, tier);
  }

  /**
   * Forgets what this replica keeps of {@code feature}'s decided tier (its local copy and fallback):
   * the scope it names was dropped here (a client-chosen name, idle at T0). Redis holds nothing for
   * a scope at T0, so nothing is left of it anywhere; a scope of the name made again reads Redis.
   */
  public void forget(String feature) {
    localDecided.remove(feature);
    views.invalidate(viewKey(feature));
  }

  /** Decided tiers this replica keeps as its local fallback (those below T0): tests. */
  int decidedHeld() {
    return localDecided.size();
  }


  private static String viewKey(String feature) {
    return "tier:{" + feature + "}";
  }
}
