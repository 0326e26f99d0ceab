package dev.levee.gateway;

import dev.levee.core.chain.HedgePolicy;
import dev.levee.core.chain.Target;
import dev.levee.gateway.route.RouteDefaults;
import java.util.List;

/**
 * What a client's {@code model} resolves to.
 *
 * @param alias what the client asked for
 * @param targets the targets in order of preference (not empty)
 * @param configured whether {@code alias} is a configured alias (else a pass-through model name)
 * @param recover whether a stream that breaks after its commit point is recovered ({@code
 *     models.<alias>.resume}, default true)
 * @param hedge when the first call is hedged ({@code models.<alias>.hedge}); null: never
 * @param routing the alias's route defaults when it is routed by score ({@code route: score}),
 *     else null: the chain is the order
 */
public record AliasChain(String alias, List<Target> targets, boolean configured, boolean recover, HedgePolicy hedge,
    RouteDefaults routing) {

  public AliasChain {
    targets = List.copyOf(targets);
    if (targets.isEmpty()) throw new IllegalArgumentException("an alias needs at least one target");
  }

  /** A chain tried in order that never hedges. */
  public AliasChain(String alias, List<Target> targets, boolean configured, boolean recover) {
    this(alias, targets, configured, recover, null, null);
  }

  /** Whether the scoring router orders this alias's targets ({@code route: score}). */
  public boolean routed() {
    return routing != null;
  }

  /** The chain's last target: the default T1 (reduced) target. */
  public Target last() {
    return targets.get(targets.size() - 1);
  }
}
