package dev.levee.gateway;

import dev.levee.core.chain.Target;
import dev.levee.gateway.config.GatewayConfig;
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
public final class Routes {

  /**
   * The plan for one request.
   *
   * @param alias what the client asked for
   * @param targets the targets in order of preference
   * @param configured whether {@code alias} is a configured alias (else a pass-through model)
   */
  public record Route(String alias, List<Target> targets, boolean configured) {}

  private final Map<String, List<Target>> chains = new LinkedHashMap<>();
  private final String defaultUpstream;

  public Routes(GatewayConfig config) {
    config.models().forEach((alias, route) -> chains.put(alias,
        route.chain().stream().map(t -> new Target(t.upstream(), t.model())).toList()));
    this.defaultUpstream = config.upstreams().keySet().iterator().next();
  }

  /** The route for a requested model name. */
  public Route resolve(String model) {
    List<Target> chain = chains.get(model);
    return chain != null
        ? new Route(model, chain, true)
        : new Route(model, List.of(new Target(defaultUpstream, model)), false);
  }

  /** Every target of every configured chain, in order of first appearance. */
  public Set<Target> configuredTargets() {
    Set<Target> all = new LinkedHashSet<>();
    chains.values().forEach(all::addAll);
    return all;
  }

  /** The upstream that takes models no alias names. */
  public String defaultUpstream() {
    return defaultUpstream;
  }
}
