package dev.levee.gateway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.gateway.cache.CacheDirectives;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.SemanticQuery;

/**
 * Where a request's answer lives in the cache, and what the request allows.
 *
 * <p>The key costs a streaming pass over the body (no tree), its canonical form and a SHA-256,
 * so it is worked out only when first needed — a lookup at T2 or as the last resort, or a
 * write-back once there is an answer worth keeping — never for a request that ends without one.
 * Only a feature with the semantic cache on reads the body as a tree (for the question's text).
 * Not thread-safe: one slot per request, used on its thread.
 */
final class CacheSlot {

  /** For requests that never touch the cache. */
  static final CacheSlot NONE = new CacheSlot(null, CacheDirectives.NONE, false);

  private final InboundRequest in; // null: the request cannot use the cache
  private final CacheDirectives directives;
  private final boolean semanticWanted;
  private boolean resolved;
  private CacheKey key;
  private SemanticQuery semantic;

  private CacheSlot(InboundRequest in, CacheDirectives directives, boolean semanticWanted) {
    this.in = in;
    this.directives = directives;
    this.semanticWanted = semanticWanted;
  }

  /** The slot of {@code in}; {@code semantic} says whether its feature looks up by meaning. */
  static CacheSlot of(InboundRequest in, boolean semantic) {
    if (!in.asksForAnswer()) {
      return NONE;
    }
    CacheDirectives directives = CacheDirectives.of(in.request().headers());
    boolean usable = directives.mayStore() || directives.mayServe();
    return new CacheSlot(usable ? in : null, directives, usable && semantic);
  }

  /**
   * The exact key (tenant, alias, request), or null when the request cannot use the cache (a
   * token count, a body beyond the key's JSON limits, or no-store and no-cache both). Worked out
   * on the first call.
   */
  CacheKey key() {
    resolve();
    return key;
  }

  /** The question for a semantic lookup, or null (the feature has it off, or there is no key). */
  SemanticQuery semantic() {
    resolve();
    return semantic;
  }

  /** The request's own {@code cache-control}. */
  CacheDirectives directives() {
    return directives;
  }

  /**
   * Whether the request allows its answer to be written back (cheap: the key is not worked out;
   * a write-back still needs a non-null {@link #key()}).
   */
  boolean mayStore() {
    return in != null && directives.mayStore();
  }

  /** Whether a cached answer may be served (fresh, or as the last resort); works out the key. */
  boolean mayServe() {
    return in != null && directives.mayServe() && key() != null;
  }

  private void resolve() {
    if (resolved || in == null) {
      return;
    }
    resolved = true;
    try {
      key = CacheKey.of(in.body(), in.tenant(), in.body().model(), in.request().headers());
    } catch (RuntimeException e) { // beyond the JSON limits: simply not cached
      return;
    }
    if (semanticWanted) { // the question's text: the only reader of the body as a tree
      JsonNode body = Json.tryParse(in.body().body());
      semantic = body == null ? null : SemanticQuery.of(body, in.body().model(), in.request().headers()).orElse(null);
    }
  }
}
