package dev.levee.emulator;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;

/**
 * Enforces {@link RateLimitRule}s, one fixed window per model name as requested: windows start at
 * the emulator's start or last reset and follow each other on its ticker. A request that would
 * take the window past its requests or input tokens is refused (429 with {@code retry-after}, the
 * whole seconds until the window ends) and not counted; an admitted one is counted. Either way
 * the answer carries the limit's {@code anthropic-ratelimit-*} headers: limit, what remains, and
 * the window's end as the reset. Thread-safe.
 */
final class RateLimitEnforcer {

  /**
   * The outcome for one request.
   *
   * @param admitted whether the request may be answered
   * @param requestsLeft requests left in the window after this one (when admitted)
   * @param tokensLeft input tokens left in the window after this one (when admitted)
   * @param untilReset time until the window ends
   */
  record Verdict(RateLimitRule rule, boolean admitted, long requestsLeft, long tokensLeft, Duration untilReset) {

    /** Whole seconds until the window ends, at least 1: the 429's {@code retry-after}. */
    long retryAfterSeconds() {
      return Math.max(1, (untilReset.toMillis() + 999) / 1000);
    }

    /** Puts the enforced limit's headers, replacing the informational ones of the same names. */
    void apply(HttpFields.Mutable headers, Instant wallNow) {
      String reset = RateLimitHeaders.wholeSecondAfter(wallNow.plus(untilReset));
      if (rule.requests() > 0) {
        headers.put("anthropic-ratelimit-requests-limit", Integer.toString(rule.requests()));
        headers.put("anthropic-ratelimit-requests-remaining", Long.toString(requestsLeft));
        headers.put("anthropic-ratelimit-requests-reset", reset);
      }
      if (rule.tokens() > 0) {
        for (String bucket : new String[] {"input-tokens", "tokens"}) {
          headers.put("anthropic-ratelimit-" + bucket + "-limit", Long.toString(rule.tokens()));
          headers.put("anthropic-ratelimit-" + bucket + "-remaining", Long.toString(tokensLeft));
          headers.put("anthropic-ratelimit-" + bucket + "-reset", reset);
        }
      }
    }
  }

  private static final class Window {
    long index = -1;
    int requests;
    long tokens;
  }

  private final Map<String, Window> byModel = new HashMap<>();

  /**
   * Counts one request of {@code inputTokens} for {@code model} at {@code elapsed} since start or
   * reset, if the rule allows it.
   */
  synchronized Verdict admit(String model, RateLimitRule rule, long inputTokens, Duration elapsed) {
    long windowNanos = rule.window().toNanos();
    long index = elapsed.toNanos() / windowNanos;
    Duration untilReset = Duration.ofNanos((index + 1) * windowNanos - elapsed.toNanos());
    Window window = byModel.computeIfAbsent(model, m -> new Window());
    if (window.index != index) {
      window.index = index;
      window.requests = 0;
      window.tokens = 0;
    }
    boolean fits = (rule.requests() == 0 || window.requests + 1 <= rule.requests())
        && (rule.tokens() == 0 || window.tokens + inputTokens <= rule.tokens());
    if (fits) {
      window.requests++;
      window.tokens += inputTokens;
    }
    long requestsLeft = rule.requests() == 0 ? 0 : Math.max(0, rule.requests() - window.requests);
    long tokensLeft = rule.tokens() == 0 ? 0 : Math.max(0, rule.tokens() - window.tokens);
    return new Verdict(rule, fits, requestsLeft, tokensLeft, untilReset);
  }

  /** Forgets every window (the emulator was reset). */
  synchronized void clear() {
    byModel.clear();
  }
}
