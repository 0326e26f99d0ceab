package dev.levee.gateway.health;

import dev.levee.anthropic.error.RefusalReason;
import dev.levee.core.tier.Tier;
import java.time.Duration;

/**
 * One client request as the Recorder stage closes it (its access record), for metrics.
 *
 * @param alias the requested model; null when ingress refused the request
 * @param feature the request's feature; null when refused
 * @param tier the tier it was admitted at; null when refused
 * @param status the HTTP status sent (499 when the client went away first)
 * @param outcome the access log's outcome word ({@code ok}, {@code stream_complete}, {@code
 *     cache_hit}, {@code last_resort_stale}, {@code exhausted}, …)
 * @param fallback whether the answering target is not the chain's first
 * @param calls upstream calls made, a stream's recovery included
 * @param took arrival to the record (the answer sent, a stream ended)
 * @param endpoint the path family it was sent to (the {@code endpoint} label); never null
 * @param refusal why it was refused (the {@code reason} label of {@code levee_refusals_total}); null
 *     when it was not
 */
public record ServedRequest(String alias, String feature, Tier tier, int status, String outcome, boolean fallback,
    int calls, Duration took, Endpoint endpoint, RefusalReason refusal) {

  public ServedRequest {
    java.util.Objects.requireNonNull(endpoint, "endpoint");
  }

  /** A request that was not refused. */
  public ServedRequest(String alias, String feature, Tier tier, int status, String outcome, boolean fallback,
      int calls, Duration took, Endpoint endpoint) {
    this(alias, feature, tier, status, outcome, fallback, calls, took, endpoint, null);
  }

  /** A request to {@code /v1/messages}. */
  public ServedRequest(String alias, String feature, Tier tier, int status, String outcome, boolean fallback,
      int calls, Duration took) {
    this(alias, feature, tier, status, outcome, fallback, calls, took, Endpoint.MESSAGES);
  }

  /** Whether it never reached the pipeline's admission (refused, or replayed by its idempotency key): no alias. */
  public boolean refused() {
    return alias == null;
  }

  /**
   * Where the answer came from: {@code primary}, {@code fallback}, {@code cache}, {@code
   * semantic}, {@code stale}, {@code static}, {@code replay} (an idempotency key's first answer
   * again), or {@code none} when the client got no answer.
   */
  public String source() {
    return switch (outcome) {
      case "ok", "stream_complete" -> fallback ? "fallback" : "primary";
      case "cache_hit", "last_resort_hit" -> "cache";
      case "cache_semantic", "last_resort_semantic" -> "semantic";
      case "cache_stale", "last_resort_stale" -> "stale";
      case "static" -> "static";
      case "replayed" -> "replay";
      default -> "none";
    };
  }

  /** The cache lookup result this request's answer came from ({@code hit}, {@code semantic}, {@code stale}), or null. */
  public String cacheResult() {
    if (outcome.startsWith("cache_")) {
      return outcome.substring("cache_".length());
    }
    if (outcome.startsWith("last_resort_")) {
      return outcome.substring("last_resort_".length());
    }
    return null;
  }
}
