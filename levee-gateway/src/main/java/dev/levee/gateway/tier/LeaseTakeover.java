package dev.levee.gateway.tier;

import dev.levee.core.tier.Tier;
import dev.levee.gateway.cluster.SharedTiers;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the holder of a feature's tier lease starts: from the tiers the cluster published, never
 * from its own state (tester's report: a replica that took the lease from a holder killed during
 * an outage evaluated from its local T0 and empty windows, and published T0 over the holder's T2
 * while the circuit was still open; after a heal, the same jumped T2 -> T0 in one step).
 *
 * <ul>
 *   <li>On {@link SharedTiers.Lease#TAKEN}, every scope of the feature this replica has, and every
 *       alias Redis holds a tier below T0 for that it has none of yet (it learns the pair from
 *       Redis), {@linkplain dev.levee.core.tier.TierController#adopt adopts} its published tier;
 *       one INFO line names them. Those it learns are the configured aliases (each read), the
 *       feature's shared {@value TierBoard#OTHER_MODELS} scope, and the model names clients chose
 *       ({@link SharedTiers#publishedAliases}, a scan): a client-chosen name's scope is made through
 *       the bound the request path uses ({@link ClientScopes#ownScope}), so however many such keys
 *       Redis holds, at most {@value TierBoard#MAX_CLIENT_SCOPES} scopes exist; a name past the
 *       bound is not adopted (its key ends with its TTL, as before). A scope made later under the
 *       lease adopts before its first evaluation.
 *   <li>From there the usual rules apply (see {@code TierController#adopt}): the healthy run starts
 *       at the adoption, so a holder without evidence (no traffic: quiet windows, healthy) steps up
 *       one tier per {@code tiers.healthy-for}, neither at once nor never; each step is a logged
 *       transition. Only tiers so decided are published.
 *   <li>A forced tier is not a decided one: it is neither adopted nor changed.
 * </ul>
 *
 * Not thread-safe: the board's evaluation calls it, one at a time.
 */
final class LeaseTakeover {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseTakeover.class);

  private final List<String> aliases;
  private final BiFunction<String, String, ScopeHealth> configuredScope;
  private final BiFunction<String, String, ScopeHealth> clientScope;

  /**
   * @param aliases the configured aliases: each has a scope in every feature
   * @param configuredScope makes (or finds) a feature's scope of a configured alias
   * @param clientScope makes (or finds) a feature's scope of a client-chosen name, or its shared
   *     {@value TierBoard#OTHER_MODELS} scope, through the bound of client scopes: null past it
   */
  LeaseTakeover(List<String> aliases, BiFunction<String, String, ScopeHealth> configuredScope,
      BiFunction<String, String, ScopeHealth> clientScope) {
    this.aliases = List.copyOf(aliases);
    this.configuredScope = configuredScope;
    this.clientScope = clientScope;
  }

  /**
   * The scopes of {@code feature} the lease holder evaluates now, each started from its published
   * tier if it has not since {@code lease} was last taken.
   *
   * @param scopes this replica's scopes of {@code feature}
   */
  List<ScopeHealth> prepare(SharedTiers cluster, String feature, List<ScopeHealth> scopes, SharedTiers.Lease lease) {
    List<ScopeHealth> out = new ArrayList<>(scopes);
    Map<ScopeHealth, Tier> published = new LinkedHashMap<>();
    if (lease == SharedTiers.Lease.TAKEN) {
      Set<String> known = new HashSet<>();
      scopes.forEach(s -> {
        s.adopted(false);
        known.add(s.alias());
      });
      for (String alias : aliases) {
        if (!known.contains(alias)) {
          Tier tier = cluster.published(SharedTiers.scopeName(feature, alias));
          if (tier != Tier.T0) {
            ScopeHealth made = configuredScope.apply(feature, alias);
            out.add(made);
            published.put(made, tier);
          }
        }
      }
      // the names clients chose, the shared scope first: the scan may also return the configured aliases
      List<String> named = new ArrayList<>(List.of(TierBoard.OTHER_MODELS));
      named.addAll(cluster.publishedAliases(feature, TierBoard.MAX_CLIENT_SCOPES + aliases.size() + 1));
      Set<String> configured = Set.copyOf(aliases);
      for (String alias : named) {
        if (configured.contains(alias) || !known.add(alias)) {
          continue;
        }
        Tier tier = cluster.published(SharedTiers.scopeName(feature, alias));
        ScopeHealth made = tier == Tier.T0 ? null : clientScope.apply(feature, alias);
        if (made != null) {
          out.add(made);
          published.put(made, tier);
        }
      }
    }
    List<String> adopted = new ArrayList<>();
    for (ScopeHealth s : out) {
      if (!s.adopted()) {
        Tier tier = published.computeIfAbsent(s, k -> cluster.published(TierBoard.sharedName(k)));
        Tier before = s.controller().adopt(tier, "adopted " + tier + ", the tier the cluster published, on taking"
            + " over the feature's evaluation; the usual rules apply from here");
        s.adopted(true);
        if (lease == SharedTiers.Lease.TAKEN || before != tier) {
          adopted.add(s.alias() + " " + tier + (before == tier ? "" : " (was " + before + " here)"));
        }
      }
    }
    if (lease == SharedTiers.Lease.TAKEN) {
      LOG.info("tier lease of feature {} taken: starting from the published tiers, {}", feature,
          adopted.isEmpty() ? "no alias yet" : String.join(", ", adopted));
    } else if (!adopted.isEmpty()) {
      LOG.info("tier of feature {} through a new scope starts from the published tier: {}", feature,
          String.join(", ", adopted));
    }
    return out;
  }
}
