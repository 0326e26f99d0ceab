package dev.levee.gateway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.gateway.Routes;
import dev.levee.gateway.cache.CacheDirectives;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.HeaderValues;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.cache.SemanticCache;
import dev.levee.gateway.cache.SemanticQuery;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The admission stage: what the request's feature, at its current tier, may have.
 *
 * <ul>
 *   <li><b>T0</b>: the full chain; extended thinking kept unless the feature says {@code never}.
 *   <li><b>T1</b>: the feature's reduced target (default: the chain's last), {@code max_tokens}
 *       capped, thinking removed (unless {@code thinking: always}).
 *   <li><b>T2</b>: a fresh cached answer (exact, then semantic when enabled); on a miss, generated
 *       as at T1 and written back with the cold TTL — a cold cache warms up, it does not fail.
 *   <li><b>T3</b>: no upstream call: fail-open features get their static text as a well-formed
 *       message, fail-closed ones a 503 echoing their input.
 * </ul>
 *
 * <p>Answers from T0/T1 are written back with the hot TTL. Tenants never share entries; a
 * request's own {@code cache-control: no-store / no-cache} is honoured. Thread-safe.
 */
final class Admission {

  /** The request's place in the degradation scheme, carried to the later stages. */
  record Ticket(String feature, Feature config, Tier tier, CacheKey key, CacheDirectives directives,
      SemanticQuery semantic) {

    boolean mayStore() {
      return key != null && directives.mayStore();
    }

    boolean mayServe() {
      return key != null && directives.mayServe();
    }

    boolean degraded() {
      return tier != Tier.T0;
    }
  }

  /** What admission decided. */
  sealed interface Decision {
    Ticket ticket();
  }

  /** Answer from the cache, without an upstream call. */
  record FromCache(Ticket ticket, byte[] message, String cacheStatus) implements Decision {}

  /** T3 fail-open: the feature's static answer. */
  record Static(Ticket ticket) implements Decision {}

  /** T3 fail-closed: refuse, echoing the input. */
  record FailClosed(Ticket ticket) implements Decision {}

  /**
   * Go upstream.
   *
   * @param targets the chain to run
   * @param request the request with the tier's edits
   * @param storeTtl how long the answer is cached (hot, or cold for a T2 regeneration)
   * @param cacheStatus {@code miss} when a T2 lookup missed, else null
   */
  record Upstream(Ticket ticket, List<Target> targets, OriginalRequest request, Duration storeTtl, String cacheStatus)
      implements Decision {}

  private final GatewayConfig config;
  private final TierBoard tiers;
  private final ResponseCache cache;
  private final SemanticCache semantic; // null when no feature uses it

  Admission(GatewayConfig config, TierBoard tiers, ResponseCache cache, SemanticCache semantic) {
    this.config = config;
    this.tiers = tiers;
    this.cache = cache;
    this.semantic = semantic;
  }

  Decision admit(InboundRequest in, Routes.Route route) {
    String name = HeaderValues.first(in.request().headers(), "x-levee-feature");
    String feature = name != null && tiers.knows(name) ? name : Feature.DEFAULT_NAME;
    Feature f = config.feature(feature);
    if (!in.path().equals("/v1/messages")) { // count_tokens: no model answer to degrade or cache
      return new Upstream(new Ticket(feature, f, Tier.T0, null, CacheDirectives.NONE, null), route.targets(),
          in.request(), Duration.ZERO, null);
    }
    Tier tier = tiers.tier(feature, route.alias(), route.targets()); // issue 10 (tiers): the tier of this feature through this alias
    CacheDirectives directives = CacheDirectives.of(in.request().headers());
    JsonNode body = directives.mayStore() || directives.mayServe() ? Json.tryParse(in.body().body()) : null;
    CacheKey key = cacheKey(body, in);
    SemanticQuery query = key != null && f.semantic() && semantic != null
        ? SemanticQuery.of(body, in.body().model(), in.request().headers()).orElse(null) : null;
    Ticket ticket = new Ticket(feature, f, tier, key, directives, query);
    return switch (tier) {
      case T0 -> new Upstream(ticket, route.targets(), shaped(in, f, Tier.T0), f.hotTtl(), null);
      case T1 -> new Upstream(ticket, reduced(f, route), shaped(in, f, Tier.T1), f.hotTtl(), null);
      case T2 -> {
        Optional<FromCache> hit = ticket.mayServe() ? fresh(ticket) : Optional.empty();
        yield hit.isPresent() ? hit.get()
            : new Upstream(ticket, reduced(f, route), shaped(in, f, Tier.T1), f.coldTtl(), "miss");
      }
      case T3 -> f.failMode().equals("closed") ? new FailClosed(ticket) : new Static(ticket);
    };
  }

  /** A fresh answer for the ticket: exact first, then by meaning. */
  private Optional<FromCache> fresh(Ticket ticket) {
    if (cache.lookup(ticket.key()) instanceof ResponseCache.Fresh fresh) {
      return Optional.of(new FromCache(ticket, fresh.answer().messageJson(), "hit"));
    }
    return semanticMatch(ticket, ResponseCache.Fresh.class::isInstance)
        .filter(lookup -> lookup instanceof ResponseCache.Fresh)
        .flatMap(lookup -> served(ticket, lookup, "semantic"));
  }

  /**
   * The last resort when every target failed: a present answer, even expired (within the
   * maximum staleness), exact first, then by meaning.
   */
  Optional<FromCache> staleIfError(Ticket ticket) {
    if (!ticket.mayServe()) {
      return Optional.empty();
    }
    Optional<FromCache> exact = served(ticket, cache.lookup(ticket.key()), "hit");
    return exact.isPresent() ? exact
        : semanticMatch(ticket, lookup -> !(lookup instanceof ResponseCache.Miss))
            .flatMap(lookup -> served(ticket, lookup, "semantic"));
  }

  /** The cache entry of the best semantic match whose entry is {@code usable}; candidates are not counted. */
  private Optional<ResponseCache.Lookup> semanticMatch(Ticket ticket,
      java.util.function.Predicate<ResponseCache.Lookup> usable) {
    if (ticket.semantic() == null) {
      return Optional.empty();
    }
    return semantic.lookup(ticket.semantic(), ticket.config().semanticThreshold(), k -> usable.test(cache.peek(k)))
        .map(match -> cache.lookup(match.key()));
  }

  /** An answer from a lookup: fresh as {@code freshStatus}, expired as {@code stale}. */
  private static Optional<FromCache> served(Ticket ticket, ResponseCache.Lookup lookup, String freshStatus) {
    return switch (lookup) {
      case ResponseCache.Fresh fresh -> Optional.of(new FromCache(ticket, fresh.answer().messageJson(), freshStatus));
      case ResponseCache.Stale stale -> Optional.of(new FromCache(ticket, stale.answer().messageJson(), "stale"));
      case ResponseCache.Miss miss -> Optional.empty();
    };
  }

  /** Writes a finished answer back, when the ticket allows. */
  void store(Ticket ticket, byte[] message, String model, Duration ttl) {
    if (ticket.mayStore() && cache.put(ticket.key(), message, model, ttl) && ticket.semantic() != null) {
      semantic.put(ticket.semantic(), ticket.key());
    }
  }

  private static List<Target> reduced(Feature f, Routes.Route route) {
    if (f.reduced() != null && f.reduced().target() != null) {
      return List.of(new Target(f.reduced().target().upstream(), f.reduced().target().model()));
    }
    return List.of(route.targets().get(route.targets().size() - 1));
  }

  private static OriginalRequest shaped(InboundRequest in, Feature f, Tier tier) {
    boolean keepThinking = f.thinking().equals("always") || (tier == Tier.T0 && f.thinking().equals("t0"));
    long cap = tier == Tier.T0 ? 0 : (f.reduced() != null ? f.reduced().maxTokens() : 1024);
    return in.request().shaped(cap, keepThinking ? Set.of() : Set.of("thinking"));
  }

  /** The request's cache key, or null (no caching) when the request may not use the cache or its body cannot be keyed. */
  private static CacheKey cacheKey(JsonNode body, InboundRequest in) {
    if (body == null) {
      return null;
    }
    try {
      return CacheKey.of(body, in.body().model(), in.request().headers());
    } catch (RuntimeException e) { // beyond the JSON limits: simply not cached
      return null;
    }
  }
}
