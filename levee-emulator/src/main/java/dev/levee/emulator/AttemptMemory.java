package dev.levee.emulator;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which conversations each model has already seen since the last reset, so that first-attempt
 * faults strike once. A conversation is keyed by (model, hash of the system prompt and the first
 * user message): retries and continuations share it. Thread-safe.
 */
final class AttemptMemory {

  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final java.util.Map<String, Integer> counts = new ConcurrentHashMap<>();

  /** Records an attempt; true when it is the first for this model and conversation. */
  boolean firstAttempt(String model, String conversationIdentity) {
    return seen.add(model + "\0" + Long.toHexString(Prng.hash(conversationIdentity)));
  }

  /** Records an attempt; returns how many this model and conversation had before it (0 for the first). */
  int attempt(String model, String conversationIdentity) {
    return counts.merge(model + "\0" + Long.toHexString(Prng.hash(conversationIdentity)), 1, Integer::sum) - 1;
  }

  void clear() {
    counts.clear();
    seen.clear();
  }
}
