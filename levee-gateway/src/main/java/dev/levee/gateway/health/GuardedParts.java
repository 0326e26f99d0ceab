package dev.levee.gateway.health;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs named parts of bookkeeping each on its own — stage 6's (settling the call, the cache store,
 * the SLO, metrics, the trace, the access record) and the fallback chain's call observers ({@link
 * GuardedObservers}): a part that throws (a bug, an answer of an odd shape) skips none of the
 * others and never reaches the request's thread or the client's connection — the client's answer
 * is paid for, and the books come after it.
 *
 * <p>A part's first failure is logged at WARN with its stack trace; later failures of the same
 * part are not logged (a bug in one part would otherwise log once per request), only counted
 * through the {@code counted} hook (every failure, e.g. {@code levee_bookkeeping_failures_total}).
 * Only {@link RuntimeException}s are caught: an {@link Error} (out of memory) is not the part's.
 *
 * <p>Thread-safe.
 */
public final class GuardedParts {

  private static final Logger LOG = LoggerFactory.getLogger(GuardedParts.class);

  private final Set<String> warned = ConcurrentHashMap.newKeySet();
  private final BiConsumer<String, RuntimeException> warn;
  private final Consumer<String> counted;

  /**
   * Stage 6's parts, a first failure logged as one.
   *
   * @param counted told the part's name at every failure of it (a metrics counter)
   */
  public GuardedParts(Consumer<String> counted) {
    this(counted, (part, e) -> LOG.warn("bookkeeping part \"{}\" failed; the request and its other bookkeeping "
        + "went on (logged once per part; levee_bookkeeping_failures_total counts each)", part, e));
  }

  /** @param warn writes a part's first failure (the WARN line; a test's list) */
  public GuardedParts(Consumer<String> counted, BiConsumer<String, RuntimeException> warn) {
    this.counted = counted;
    this.warn = warn;
  }

  /**
   * Runs one part; a {@link RuntimeException} it throws is counted, logged if it is the part's
   * first, and not thrown on.
   *
   * @param part the part's name, one of a few fixed words (a metrics label)
   */
  public void run(String part, Runnable body) {
    try {
      body.run();
    } catch (RuntimeException e) {
      failed(part, e);
    }
  }

  private void failed(String part, RuntimeException e) {
    try {
      counted.accept(part);
    } catch (RuntimeException ignored) { // the counter's own failure must not undo the guard
    }
    if (warned.add(part)) {
      try {
        warn.accept(part, e);
      } catch (RuntimeException ignored) { // nor the log's
      }
    }
  }
}
