package dev.levee.gateway.cache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * One complete, successful Messages API answer kept by the {@link ResponseCache}.
 *
 * @param messageJson the {@code message} object as the upstream returned it (JSON, or the
 *     accumulated message of a finished stream), UTF-8; not copied on access — do not modify
 * @param model the model that produced it (the concrete target, for {@code x-levee-*} headers)
 * @param storedAtNanos the cache's ticker reading when it was stored
 * @param ttl how long it stays fresh; after that it is stale until the cache's max staleness
 */
public record CachedAnswer(byte[] messageJson, String model, long storedAtNanos, Duration ttl) {

  public CachedAnswer {
    Objects.requireNonNull(messageJson, "messageJson");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(ttl, "ttl");
    if (!ttl.isPositive()) throw new IllegalArgumentException("ttl must be positive, was " + ttl);
  }

  /** Age at ticker reading {@code nowNanos}. */
  public Duration age(long nowNanos) {
    return Duration.ofNanos(Math.max(0, nowNanos - storedAtNanos));
  }

  /** Whether it is still fresh at ticker reading {@code nowNanos}. */
  public boolean isFresh(long nowNanos) {
    return nowNanos - storedAtNanos < ttl.toNanos();
  }

  /** The message as a string. */
  public String messageText() {
    return new String(messageJson, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CachedAnswer other && Arrays.equals(messageJson, other.messageJson)
        && model.equals(other.model) && storedAtNanos == other.storedAtNanos && ttl.equals(other.ttl);
  }

  @Override
  public int hashCode() {
    return Objects.hash(Arrays.hashCode(messageJson), model, storedAtNanos, ttl);
  }

  @Override
  public String toString() {
    return "CachedAnswer[" + model + ", " + messageJson.length + " bytes, ttl " + ttl + "]";
  }
}
