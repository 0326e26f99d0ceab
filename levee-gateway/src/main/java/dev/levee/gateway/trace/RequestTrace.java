package dev.levee.gateway.trace;

import dev.levee.core.chain.AttemptRecord;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.anthropic.message.TokenUsage;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the Recorder knows of one client request when it is recorded, for its trace.
 *
 * @param headers the client's headers (any case), for a W3C {@code traceparent}
 * @param alias the requested model
 * @param feature the request's feature
 * @param tier the tier it was admitted at
 * @param took arrival to now
 * @param steps the chain's steps in order (empty for an answer Levee gave itself)
 * @param target the target that answered, or null
 * @param fallback whether that target is not the chain's first
 * @param recoveries continuations spliced into a stream
 * @param status the HTTP status the client gets
 * @param outcome what it came to, one word ({@code ok}, {@code stream_complete}, {@code
 *     exhausted}, {@code cache_hit}, …)
 * @param usage tokens the upstream reported
 */
public record RequestTrace(Map<String, List<String>> headers, String alias, String feature, Tier tier, Duration took,
    List<AttemptRecord> steps, Target target, boolean fallback, int recoveries, int status, String outcome,
    TokenUsage usage) {}
