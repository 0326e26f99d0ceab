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

  /** Records an attempt; true when it is the first for this model and conversation. */
  boolean firstAttempt(String model, String conversationIdentity) {
    return seen.add(model + "\0" + Long.toHexString(Prng.hash(conversationIdentity)));
  }

  void clear() {
    seen.clear();
  }
}
