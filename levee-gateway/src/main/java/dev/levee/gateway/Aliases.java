package dev.levee.gateway;

import dev.levee.anthropic.stream.PrefillSupport;
import dev.levee.core.chain.Target;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.config.RouteMode;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Maps what a client sends as {@code model} to the targets to try. A configured alias gets its
 * fallback chain; any other name goes unchanged to the first configured upstream, alone (retries
 * and breaker, no fallback).
 */
public final class Aliases {

  private final Map<String, AliasChain> aliases = new LinkedHashMap<>();
  private final Map<Target, Boolean> prefill = new HashMap<>();
  private final String defaultUpstream;

  public Aliases(GatewayConfig config) {
    config.models().forEach((alias, spec) -> {
      List<Target> chain = spec.chain().stream().map(t -> new Target(t.upstream(), t.model())).toList();
      aliases.put(alias, new AliasChain(alias, chain, true, spec.resume(),
          spec.hedge() == null ? null : spec.hedge().policy(),
          spec.route() == RouteMode.SCORE ? spec.routeDefaults() : null));
      spec.chain().stream().filter(t -> t.prefill() != null)
          .forEach(t -> prefill.put(new Target(t.upstream(), t.model()), t.prefill()));
    });
    this.defaultUpstream = config.upstreams().keySet().iterator().next();
  }

  /** The chain for a requested model name. */
  public AliasChain resolve(String model) {
    AliasChain chain = aliases.get(model);
    return chain != null ? chain : new AliasChain(model, List.of(new Target(defaultUpstream, model)), false, true);
  }

  /** Whether {@code target} accepts a prefilled final assistant turn: as configured, else by model family. */
  public boolean prefill(Target target) {
    Boolean configured = prefill.get(target);
    return configured != null ? configured : PrefillSupport.byDefault(target.model());
  }

  /** Every target of every configured chain, in order of first appearance. */
  public Set<Target> configuredTargets() {
    Set<Target> all = new LinkedHashSet<>();
    aliases.values().forEach(r -> all.addAll(r.targets()));
    return all;
  }

  /** The configured alias named {@code alias}, if any. */
  public java.util.Optional<AliasChain> configured(String alias) {
    return java.util.Optional.ofNullable(aliases.get(alias));
  }

  /** The configured aliases' names, in configuration order. */
  public List<String> names() {
    return List.copyOf(aliases.keySet());
  }

  /** The first target of every configured alias's chain. */
  public Set<Target> firstTargets() {
    Set<Target> firsts = new LinkedHashSet<>();
    aliases.values().forEach(chain -> firsts.add(chain.targets().getFirst()));
    return firsts;
  }

  /** The upstream that takes models no alias names. */
  public String defaultUpstream() {
    return defaultUpstream;
  }
}
