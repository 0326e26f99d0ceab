package dev.levee.gateway.config;

import dev.levee.core.tier.Priority;
import java.time.Duration;

/**
 * How one feature (named by a request's {@code x-levee-feature}) degrades, tier by tier.
 *
 * @param priority {@code critical}, {@code standard} (default) or {@code optional}: on a burning
 *     error budget optional features go to T3, the others to T2
 * @param failMode {@code open} (default): at T3 answer {@code static-text}; {@code closed} (for
 *     features that write user data): at T3 answer 503 with the client's input echoed back
 * @param staticText the T3 answer of a fail-open feature
 * @param reduced the T1 target and max_tokens cap; default: the route's last target, 1024 tokens
 * @param hotTtl how long an answer from T0/T1 is served from the cache at T2 (default 10 min)
 * @param coldTtl how long an answer generated at T2 is (default 60 min)
 * @param semantic whether T2 and stale-if-error may serve a semantically close question's answer
 *     (default false)
 * @param semanticThreshold cosine similarity needed for a semantic hit (default 0.95)
 * @param disclosure {@code none}, {@code header} (default: {@code x-levee-degraded}) or {@code
 *     inline} (also a short note in answers Levee serves itself: cached and static)
 * @param thinking extended thinking: {@code t0} (default: kept at T0, removed below), {@code
 *     never}, or {@code always} (critical features only: kept at every tier)
 * @param onOutage {@code off} (default) or {@code queue}: keep a non-streaming request that cannot
 *     be answered now as a job (every target failed, the feature at T3, or degraded mode below)
 * @param queuedText the text of the message a fail-open feature answers when it queued a request;
 *     {@code {job}} is replaced by the job's id
 * @param callbackUrl where a queued request's answer is posted once its job ends; null for none
 * @param immediatePriority degraded mode (with {@code on-outage: queue}): while the feature is at
 *     T1 or below, a request whose priority (0–9, {@code x-levee-priority}, else {@link
 *     #queuePriority()}) is below this is queued instead of competing for the scarce capacity
 *     (default 7; 0 turns degraded mode off)
 */
public record Feature(
    Priority priority,
    FailMode failMode,
    String staticText,
    Reduced reduced,
    Duration hotTtl,
    Duration coldTtl,
    Boolean semantic,
    Double semanticThreshold,
    Disclosure disclosure,
    ThinkingPolicy thinking,
    OnOutage onOutage,
    String queuedText,
    String callbackUrl,
    Integer immediatePriority) {

  public static final String DEFAULT_NAME = "default";

  /** The immediate priority when none is configured. */
  public static final int DEFAULT_IMMEDIATE_PRIORITY = 7;

  public Feature {
    priority = priority == null ? Priority.STANDARD : priority;
    failMode = failMode == null ? FailMode.OPEN : failMode;
    staticText = staticText == null
        ? "This assistant is temporarily unavailable. Please try again in a few minutes." : staticText;
    hotTtl = hotTtl == null ? Duration.ofMinutes(10) : hotTtl;
    coldTtl = coldTtl == null ? Duration.ofMinutes(60) : coldTtl;
    semantic = semantic != null && semantic;
    semanticThreshold = semanticThreshold == null ? 0.95 : semanticThreshold;
    disclosure = disclosure == null ? Disclosure.HEADER : disclosure;
    thinking = thinking == null ? ThinkingPolicy.T0 : thinking;
    onOutage = onOutage == null ? OnOutage.OFF : onOutage;
    queuedText = queuedText == null ? "Your request could not be answered right now. It was queued as job {job} "
        + "and will be answered when the assistant is back." : queuedText;
    immediatePriority = immediatePriority == null ? DEFAULT_IMMEDIATE_PRIORITY : immediatePriority;
    if (immediatePriority < 0 || immediatePriority > 10) {
      throw new IllegalArgumentException("immediate-priority must be 0..10");
    }
    if (callbackUrl != null) {
      java.net.URI uri;
      try {
        uri = java.net.URI.create(callbackUrl);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("callback-url is not a URL");
      }
      if (!uri.isAbsolute() || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
        throw new IllegalArgumentException("callback-url must be an absolute http(s) URL");
      }
    }
    if (thinking == ThinkingPolicy.ALWAYS && priority != Priority.CRITICAL) {
      throw new IllegalArgumentException("thinking: always is for critical features only");
    }
    if (!(semanticThreshold > 0 && semanticThreshold <= 1)) {
      throw new IllegalArgumentException("semantic-threshold must be in (0, 1]");
    }
  }

  private static final Feature DEFAULTS =
      new Feature(null, null, null, null, null, null, null, null, null, null, null, null, null, null);

  /**
   * A feature with every default: one shared value (every request of a gateway without a {@code
   * default} feature in its config asks for it; a copy each held ~250 bytes per stream in flight).
   */
  public static Feature defaults() {
    return DEFAULTS;
  }

  /** Whether requests that cannot be answered now are queued ({@code on-outage: queue}). */
  public boolean queues() {
    return onOutage == OnOutage.QUEUE;
  }

  /**
   * The priority (0–9) of a request of this feature without {@code x-levee-priority}: {@code
   * critical} 8, {@code standard} 5, {@code optional} 2.
   */
  public int queuePriority() {
    return switch (priority) {
      case CRITICAL -> 8;
      case STANDARD -> 5;
      case OPTIONAL -> 2;
    };
  }

  /**
   * @param target the T1 target, {@code upstream/model}; null for the route's last target
   * @param maxTokens the T1 cap on {@code max_tokens} (default 1024)
   */
  public record Reduced(GatewayConfig.TargetRef target, Integer maxTokens) {

    /** The T1 cap on {@code max_tokens} when none is configured. */
    public static final int DEFAULT_MAX_TOKENS = 1024;

    public Reduced {
      maxTokens = maxTokens == null ? DEFAULT_MAX_TOKENS : maxTokens;
      if (maxTokens < 1) throw new IllegalArgumentException("max-tokens must be at least 1");
    }
  }
}
