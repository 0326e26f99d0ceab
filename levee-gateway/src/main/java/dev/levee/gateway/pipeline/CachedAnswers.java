package dev.levee.gateway.pipeline;

import dev.levee.anthropic.upstream.Reply;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.CachedAnswer;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.cache.SemanticCache;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The answer cache as the request path uses it: a fresh answer for admission (exact first, then
 * by meaning), the last resort for the responder, the write-back for the recorder. Tenants never
 * share entries (the tenant is part of every key). Thread-safe.
 */
final class CachedAnswers {

  /**
   * An answer found in the cache.
   *
   * @param status how it was found, as {@code x-levee-cache} says it: {@code hit}, {@code
   *     semantic} or {@code stale}
   * @param semantic whether it answers a question close in meaning rather than the same one
   */
  record Found(byte[] message, String status, boolean semantic) {}

  private final ResponseCache cache;
  private final SemanticCache semantic; // null when no feature uses it

  CachedAnswers(ResponseCache cache, SemanticCache semantic) {
    this.cache = cache;
    this.semantic = semantic;
  }

  /** A fresh answer for the slot: exact first, then by meaning. */
  Optional<Found> fresh(CacheSlot slot, double threshold) {
    if (!slot.mayServe()) {
      return Optional.empty();
    }
    if (cache.lookup(slot.key()) instanceof ResponseCache.Fresh fresh) {
      return Optional.of(new Found(fresh.answer().messageJson(), "hit", false));
    }
    return closest(slot, threshold, ResponseCache.Fresh.class::isInstance)
        .map(match -> cache.lookup(match))
        .filter(ResponseCache.Fresh.class::isInstance)
        .map(lookup -> new Found(((ResponseCache.Fresh) lookup).answer().messageJson(), "semantic", true));
  }

  /**
   * The last resort when every target failed (stale-if-error): an answer still held, fresh or
   * expired within {@code cache.max-staleness}, exact first, then by meaning. Always served as
   * {@code stale}, and counted as a stale lookup.
   */
  Optional<Found> lastResort(CacheSlot slot, double threshold) {
    if (!slot.mayServe()) {
      return Optional.empty();
    }
    Optional<CachedAnswer> exact = cache.lastResort(slot.key());
    if (exact.isPresent()) {
      return Optional.of(new Found(exact.get().messageJson(), "stale", false));
    }
    return closest(slot, threshold, lookup -> !(lookup instanceof ResponseCache.Miss))
        .flatMap(cache::lastResort)
        .map(answer -> new Found(answer.messageJson(), "stale", true));
  }

  /** Writes a finished answer back, when the slot allows. */
  void store(CacheSlot slot, byte[] message, String model, Duration ttl) {
    if (slot.mayStore() && slot.key() != null && cache.put(slot.key(), message, model, ttl)) {
      remember(slot);
    }
  }

  /**
   * Writes a stream's answer back, when the slot allows: {@code message} assembles it, and is
   * asked only when the cache will store it ({@link ResponseCache#put(CacheKey, Supplier, String,
   * Duration)}).
   */
  void store(CacheSlot slot, Supplier<byte[]> message, String model, Duration ttl) {
    if (slot.mayStore() && slot.key() != null && cache.put(slot.key(), message, model, ttl)) {
      remember(slot);
    }
  }

  /**
   * Writes a JSON answer back, when the slot allows: from the bytes already held, not read
   * again when its shape check found it finished ({@link Reply#finishedMessage()}).
   */
  void store(CacheSlot slot, Reply answer, String model, Duration ttl) {
    if (!answer.finishedMessage()) {
      store(slot, answer.body(), model, ttl); // refused there, and counted, unless it is a finished message after all
    } else if (slot.mayStore() && slot.key() != null && cache.putFinished(slot.key(), answer.body(), model, ttl)) {
      remember(slot);
    }
  }

  private void remember(CacheSlot slot) {
    if (slot.semantic() != null) {
      semantic.put(slot.semantic(), slot.key());
    }
  }

  /** The key of the closest question whose entry is {@code usable}; checking candidates is not counted. */
  private Optional<CacheKey> closest(CacheSlot slot, double threshold,
      Predicate<ResponseCache.Lookup> usable) {
    if (slot.semantic() == null || semantic == null) {
      return Optional.empty();
    }
    return semantic.lookup(slot.semantic(), threshold, key -> usable.test(cache.peek(key)))
        .map(SemanticCache.Match::key);
  }
}
