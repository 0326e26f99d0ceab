package dev.levee.gateway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.gateway.cache.CacheDirectives;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.SemanticQuery;

/**
 * Where a request's answer lives in the cache, and what the request allows.
 *
 * @param key the exact key (tenant, alias, request), or null when the request cannot use the
 *     cache (a token count, a body beyond the key's JSON limits, or no-store and no-cache both)
 * @param directives the request's own {@code cache-control}
 * @param semantic the question for a semantic lookup, or null (the feature has it off)
 */
record CacheSlot(CacheKey key, CacheDirectives directives, SemanticQuery semantic) {

  /** For requests that never touch the cache. */
  static final CacheSlot NONE = new CacheSlot(null, CacheDirectives.NONE, null);

  /** The slot of {@code in}; {@code semantic} says whether its feature looks up by meaning. */
  static CacheSlot of(InboundRequest in, boolean semantic) {
    if (!in.asksForAnswer()) {
      return NONE;
    }
    CacheDirectives directives = CacheDirectives.of(in.request().headers());
    JsonNode body = directives.mayStore() || directives.mayServe() ? Json.tryParse(in.body().body()) : null;
    CacheKey key = key(body, in);
    SemanticQuery query = key != null && semantic
        ? SemanticQuery.of(body, in.body().model(), in.request().headers()).orElse(null) : null;
    return new CacheSlot(key, directives, query);
  }

  /** Whether an answer may be written back. */
  boolean mayStore() {
    return key != null && directives.mayStore();
  }

  /** Whether a cached answer may be served (fresh, or as the last resort). */
  boolean mayServe() {
    return key != null && directives.mayServe();
  }

  private static CacheKey key(JsonNode body, InboundRequest in) {
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
