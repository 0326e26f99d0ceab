package dev.levee.gateway.pipeline;

import dev.levee.core.chain.AttemptRecord;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.util.List;

/**
 * Stage 6, record: settles what the relay handed on and keeps the books. A JSON answer's call is
 * settled (breaker permit, retry budget, SLIs; a stream's calls are settled by its resilient
 * stream as it ends); a finished answer is written back to the cache with the plan's TTL; once
 * the responder has answered, one {@link AccessRecord} goes to the access log and metrics. What
 * the client saw feeds its feature's SLO through its alias ({@link TierBoard#answered}, {@link
 * TierBoard#failed}): an answer after retries or a fallback is a success, an exhausted chain a
 * failure.
 * Thread-safe.
 */
final class Recorder {

  private final CachedAnswers cache;
  private final TierBoard tiers;
  private final AccessLog log;
  private final Ticker ticker;

  Recorder(CachedAnswers cache, TierBoard tiers, AccessLog log, Ticker ticker) {
    this.cache = cache;
    this.tiers = tiers;
    this.log = log;
    this.ticker = ticker;
  }

  /** Settles the answer's call and writes a finished answer back, as the admission's cache slot allows. */
  void record(long startNanos, InboundRequest in, Admission.Proceed admitted, Plan plan, Outcome outcome) {
    String feature = in.feature();
    String alias = in.alias().alias();
    switch (outcome) {
      case Outcome.Answered json -> {
        if (json.answered().response().status() == 200) {
          cache.store(admitted.cache(), json.answered().response().body(), json.answered().target().model(),
              plan.storeTtl());
        }
        json.answered().completion().success();
        tiers.answered(feature, alias, Duration.ofNanos(ticker.nanos() - startNanos));
      }
      case Outcome.Streamed stream -> {
        if (stream.message() != null) {
          cache.store(admitted.cache(), stream.message(), stream.first().target().model(), plan.storeTtl());
        }
        switch (stream.ended()) {
          case COMPLETE -> tiers.answered(feature, alias, toFirstToken(stream));
          case FAILED -> tiers.failed(feature, alias, Duration.ZERO); // never completed: failed its client
          case CLIENT_GONE -> { } // nothing about the targets
        }
      }
      case Outcome.Rejected rejected -> { } // the client's own error: settled by the chain, which classified it
      case Outcome.Exhausted exhausted -> tiers.failed(feature, alias, Duration.ofNanos(ticker.nanos() - startNanos));
      case Outcome.Cancelled cancelled -> { }
    }
  }

  /** Writes the access record of a request answered without going upstream; a cached answer is a success. */
  void recordLocal(long startNanos, InboundRequest in, Admission.Decision decision, Sent sent) {
    if (decision instanceof Admission.FromCache) {
      tiers.answered(in.feature(), in.alias().alias(), Duration.ofNanos(ticker.nanos() - startNanos));
    }
    log(startNanos, in, decision.tier(), sent);
  }

  /** A stream's latency for the SLO: to its first token, retries and backoffs included. */
  private static Duration toFirstToken(Outcome.Streamed stream) {
    return stream.first().steps().stream().map(step -> step.waited().plus(step.took()))
        .reduce(Duration.ZERO, Duration::plus);
  }

  /** Writes the access record of an admitted request that made no upstream call. */
  void log(long startNanos, InboundRequest in, Tier tier, Sent sent) {
    log(startNanos, in, tier, sent, List.of(), null);
  }

  /**
   * Writes the access record of an admitted request, with the cause of its tier below T0, the
   * steps of its first attempts (both calls of a hedged pair show) and its route explanation
   * (null when not routed).
   */
  void log(long startNanos, InboundRequest in, Tier tier, Sent sent, List<AttemptRecord> steps, String route) {
    String cause = tier == null || tier == Tier.T0 ? null : tiers.cause(in.feature(), in.alias().alias());
    log.write(new AccessRecord(in.id(), in.path(), in.alias().alias(), in.stream(), tier, sent.status(), sent.target(),
        sent.calls(), sent.fallback(), millisSince(startNanos), sent.outcome(), cause, steps, route));
  }

  /** Writes the access record of a request refused at ingress. */
  void logRefused(long startNanos, String id, String path, int status, String errorType) {
    log.write(new AccessRecord(id, path, null, false, null, status, null, 0, false, millisSince(startNanos),
        "refused " + errorType));
  }

  private long millisSince(long startNanos) {
    return (ticker.nanos() - startNanos) / 1_000_000;
  }
}
