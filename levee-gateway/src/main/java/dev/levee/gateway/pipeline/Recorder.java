package dev.levee.gateway.pipeline;

import dev.levee.core.tier.Tier;
import dev.levee.core.time.Ticker;

/**
 * Stage 6, record: settles what the relay handed on and keeps the books. A JSON answer's call is
 * settled (breaker permit, retry budget, SLIs; a stream's calls are settled by its resilient
 * stream as it ends); a finished answer is written back to the cache with the plan's TTL; once
 * the responder has answered, one {@link AccessRecord} goes to the access log and metrics.
 * Thread-safe.
 */
final class Recorder {

  private final CachedAnswers cache;
  private final AccessLog log;
  private final Ticker ticker;

  Recorder(CachedAnswers cache, AccessLog log, Ticker ticker) {
    this.cache = cache;
    this.log = log;
    this.ticker = ticker;
  }

  /** Settles the answer's call and writes a finished answer back, as the admission's cache slot allows. */
  void record(Admission.Proceed admitted, Plan plan, Outcome outcome) {
    switch (outcome) {
      case Outcome.Answered json -> {
        if (json.answered().response().status() == 200) {
          cache.store(admitted.cache(), json.answered().response().body(), json.answered().target().model(),
              plan.storeTtl());
        }
        json.answered().completion().success();
      }
      case Outcome.Streamed stream -> {
        if (stream.message() != null) {
          cache.store(admitted.cache(), stream.message(), stream.first().target().model(), plan.storeTtl());
        }
      }
      case Outcome.Rejected rejected -> { } // settled by the chain, which classified it
      case Outcome.Exhausted exhausted -> { }
      case Outcome.Cancelled cancelled -> { }
    }
  }

  /** Writes the access record of an admitted request. */
  void log(long startNanos, InboundRequest in, Tier tier, Sent sent) {
    log.write(new AccessRecord(in.id(), in.path(), in.alias().alias(), in.stream(), tier, sent.status(), sent.target(),
        sent.calls(), sent.fallback(), millisSince(startNanos), sent.outcome()));
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
