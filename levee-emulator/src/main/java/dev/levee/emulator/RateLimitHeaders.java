package dev.levee.emulator;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.eclipse.jetty.http.HttpFields;

/**
 * Plausible {@code anthropic-ratelimit-*} headers: fixed limits (4000 requests, 400,000 input and
 * 80,000 output tokens per minute); "remaining" counts down with the requests of the current
 * wall-clock minute; "reset" is the start of the next minute (RFC 3339). Informational only: these
 * are never enforced (a model name asks for an enforced limit, see {@link RateLimitEnforcer}).
 * Thread-safe.
 */
final class RateLimitHeaders {

  static final int REQUESTS = 4000;
  static final int INPUT_TOKENS = 400_000;
  static final int OUTPUT_TOKENS = 80_000;

  private long minute = -1;
  private int requests;
  private long inputTokens;

  /** Counts one request of {@code tokens} input tokens and adds the headers to {@code headers}. */
  void apply(HttpFields.Mutable headers, int tokens) {
    Instant now = Instant.now();
    Instant reset = now.truncatedTo(ChronoUnit.MINUTES).plus(1, ChronoUnit.MINUTES);
    int requestsLeft;
    long inputLeft;
    synchronized (this) {
      long current = now.getEpochSecond() / 60;
      if (current != minute) {
        minute = current;
        requests = 0;
        inputTokens = 0;
      }
      requests++;
      inputTokens += tokens;
      requestsLeft = Math.max(0, REQUESTS - requests);
      inputLeft = Math.max(0, INPUT_TOKENS - inputTokens);
    }
    String resetText = reset.toString();
    headers.put("anthropic-ratelimit-requests-limit", Integer.toString(REQUESTS));
    headers.put("anthropic-ratelimit-requests-remaining", Integer.toString(requestsLeft));
    headers.put("anthropic-ratelimit-requests-reset", resetText);
    headers.put("anthropic-ratelimit-input-tokens-limit", Integer.toString(INPUT_TOKENS));
    headers.put("anthropic-ratelimit-input-tokens-remaining", Long.toString(inputLeft));
    headers.put("anthropic-ratelimit-input-tokens-reset", resetText);
    headers.put("anthropic-ratelimit-output-tokens-limit", Integer.toString(OUTPUT_TOKENS));
    headers.put("anthropic-ratelimit-output-tokens-remaining", Integer.toString(OUTPUT_TOKENS));
    headers.put("anthropic-ratelimit-output-tokens-reset", resetText);
    headers.put("anthropic-ratelimit-tokens-limit", Integer.toString(INPUT_TOKENS + OUTPUT_TOKENS));
    headers.put("anthropic-ratelimit-tokens-remaining", Long.toString(inputLeft + OUTPUT_TOKENS));
    headers.put("anthropic-ratelimit-tokens-reset", resetText);
  }

  /**
   * Turns the headers of an answer that is a 429 into ones that agree with it: no request left
   * until {@code retryAfterSeconds} from now (the informational counts said thousands remained).
   */
  static void limited(HttpFields.Mutable headers, long retryAfterSeconds) {
    headers.put("anthropic-ratelimit-requests-remaining", "0");
    headers.put("anthropic-ratelimit-requests-reset", wholeSecondAfter(Instant.now().plusSeconds(retryAfterSeconds)));
  }

  /** {@code at} in RFC 3339 with whole seconds, rounded up, as the API gives its reset times. */
  static String wholeSecondAfter(Instant at) {
    Instant whole = at.truncatedTo(ChronoUnit.SECONDS);
    return (whole.equals(at) ? whole : whole.plusSeconds(1)).toString();
  }
}
