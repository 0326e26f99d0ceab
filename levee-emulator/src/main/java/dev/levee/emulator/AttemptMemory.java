package dev.levee.emulator;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which conversations each model has already seen since the last reset, so that first-attempt
 * faults strike once. A conversation is keyed by (model, hash of the system prompt and the first
 * user message): retries and continuations share it. Clients choose both, so the memory is
 * bounded: past {@value #MAX_CONVERSATIONS} conversations the least recently attempted is
 * forgotten (its next attempt counts as a first one again). Thread-safe.
 */
final class AttemptMemory {

  /** The most conversations remembered. */
  static final int MAX_CONVERSATIONS = 100_000;

  private final Map<String, Boolean> seen = new LinkedHashMap<>(1024, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > MAX_CONVERSATIONS;
    }
  };
  private final Map<String, Integer> counts = new LinkedHashMap<>(1024, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
      return size() > MAX_CONVERSATIONS;
    }
  };

  /** Records an attempt; true when it is the first for this model and conversation. */
  synchronized boolean firstAttempt(String model, String conversationIdentity) {
    return seen.put(model + "\0" + Long.toHexString(Prng.hash(conversationIdentity)), Boolean.TRUE) == null;
  }

  /** Records an attempt; returns how many this model and conversation had before it (0 for the first). */
  synchronized int attempt(String model, String conversationIdentity) {
    return counts.merge(model + "\0" + Long.toHexString(Prng.hash(conversationIdentity)), 1, Integer::sum) - 1;
  }

  synchronized void clear() {
    counts.clear();
    seen.clear();
  }

  synchronized int size() {
    return seen.size();
  }
}
