package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.core.chain.AttemptRecord;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.health.Endpoint;
import dev.levee.gateway.health.GuardedParts;
import dev.levee.gateway.health.Metrics;
import dev.levee.gateway.health.ServedRequest;
import dev.levee.anthropic.message.TokenUsage;
import dev.levee.anthropic.stream.TargetUsage;
import dev.levee.gateway.tier.TierBoard;
import dev.levee.gateway.trace.RequestTrace;
import dev.levee.gateway.trace.Tracing;
import java.time.Duration;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Stage 6, record: settles what the relay handed on and keeps the books. A JSON answer's call is
 * settled before its client is answered ({@link #settle}: breaker permit, retry budget, SLIs; a
 * stream's calls are settled by its resilient stream as it ends); the rest waits until the
 * responder has answered ({@link #respondThenLog}): a finished answer is written back to the cache
 * with the plan's TTL, and one {@link AccessRecord} goes to the access log and metrics. What
 * the client saw feeds its feature's SLO through its alias ({@link TierBoard#answered}, {@link
 * TierBoard#failed}): an answer after retries or a fallback is a success, an exhausted chain a
 * failure. A queued job's try ({@link #recordJob}) feeds no SLO: no client waits on it — a try
 * that fails puts the job back to wait — and the SLO measures what interactive clients get; its
 * upstream calls still feed the breakers and the target windows, as every call does (newcomer
 * trial, session 9: a backlog's instant half-open refusals, 597 of them, burned a healthy
 * feature's budget and held it at T2). Metrics are written here too: from the outcome (retries,
 * time to first token, stream recoveries, token usage and its cost — a recovered stream's under the
 * model of each target that served part of it — a T2 cache miss) and from the access record
 * (duration, status, source of the answer).
 *
 * <p>Each of these parts runs on its own ({@link GuardedParts}): one that throws (a bug, an answer
 * of an odd shape) skips none of the others, never reaches the client's answer or the request's
 * thread, and is logged once per part and counted in {@code levee_bookkeeping_failures_total}.
 * Thread-safe.
 */
final class Recorder {

  private final CachedAnswers cache;
  private final TierBoard tiers;
  private final AccessLog log;
  private final Metrics metrics;
  private final Tracing tracing;
  private final Ticker ticker;
  private final GuardedParts parts;

  Recorder(CachedAnswers cache, TierBoard tiers, AccessLog log, Metrics metrics, Tracing tracing, Ticker ticker) {
    this(cache, tiers, log, metrics, tracing, ticker, new GuardedParts(metrics::bookkeepingFailed));
  }

  /** @param parts runs each part of the bookkeeping on its own (a test's, to see its warnings) */
  Recorder(CachedAnswers cache, TierBoard tiers, AccessLog log, Metrics metrics, Tracing tracing, Ticker ticker,
      GuardedParts parts) {
    this.parts = parts;
    this.cache = cache;
    this.tiers = tiers;
    this.log = log;
    this.metrics = metrics;
    this.tracing = tracing;
    this.ticker = ticker;
  }

  /**
   * Settles a JSON answer's call (breaker permit, retry budget, SLIs): before its client is
   * answered, so that the next request sees the target as this call left it. A stream's calls are
   * settled by its resilient stream; other outcomes were settled by the chain.
   */
  void settle(Outcome outcome) {
    if (outcome instanceof Outcome.Answered json) {
      parts.run("settle", () -> json.answered().completion().success());
    }
  }

  /**
   * A client's books once its call is {@link #settle settled}: the cache write-back the admission's
   * cache slot allows, the SLO of its feature through its alias, metrics and trace. Run after the
   * answer is written ({@link #respondThenLog}): the write-back's key costs a pass over the request
   * body (~0.2 ms for 100 KB, ~2 ms for 1 MB), which no answer waits for.
   *
   * @param sendTimedOut whether the server's {@code send-timeout} cut the client's connection (it
   *     stopped reading): a stream the relay ended {@code CLIENT_GONE} is traced {@code
   *     stream_send_timeout}, as the access log says it; nothing else changes (the cache, the SLO
   *     and the metrics read the relay's outcome, a client's doing either way)
   */
  void keepBooks(long startNanos, InboundRequest in, Admission.Proceed admitted, Plan plan, Outcome outcome,
      boolean sendTimedOut) {
    store(admitted, plan, outcome);
    parts.run("slo", () -> feedSlo(startNanos, in, outcome));
    countAndTrace(startNanos, in, admitted, outcome, "client_gone", sendTimedOut);
  }

  /**
   * Settles a queued job's try as {@link #settle} and {@link #keepBooks} do a client's answer, without feeding any SLO.
   *
   * @param stoppedAs the outcome word of a stopped try: {@code lease_lost}, {@code cancelled} or {@code shutdown}
   */
  void recordJob(long startNanos, InboundRequest in, Admission.Proceed admitted, Plan plan, Outcome outcome,
      String stoppedAs) {
    settle(outcome);
    store(admitted, plan, outcome);
    countAndTrace(startNanos, in, admitted, outcome, stoppedAs, false); // a job has no client connection to cut
  }

  /** Writes a finished answer back as the admission's cache slot allows. */
  private void store(Admission.Proceed admitted, Plan plan, Outcome outcome) {
    switch (outcome) {
      case Outcome.Answered json -> {
        if (json.answered().response().status() == 200) {
          parts.run("cache_store", () -> cache.store(admitted.cache(), json.answered().response(),
              json.answered().target().model(), plan.storeTtl()));
        }
      }
      case Outcome.Streamed stream -> {
        if (stream.message() != null) {
          parts.run("cache_store", () -> cache.store(admitted.cache(), stream.message(),
              stream.first().target().model(), plan.storeTtl()));
        }
      }
      case Outcome.Rejected rejected -> { } // the client's own error: settled by the chain, which classified it
      case Outcome.Exhausted exhausted -> { }
      case Outcome.Cancelled cancelled -> { }
    }
  }

  /** What the client saw, for the SLO of its feature through its alias. */
  private void feedSlo(long startNanos, InboundRequest in, Outcome outcome) {
    String feature = in.feature();
    String alias = in.alias().alias();
    switch (outcome) {
      case Outcome.Answered json -> tiers.answered(feature, alias, null); // a JSON answer's time is its length
      case Outcome.Streamed stream -> {
        switch (stream.ended()) {
          case COMPLETE -> tiers.answered(feature, alias, toFirstToken(stream));
          case FAILED -> tiers.failed(feature, alias, Duration.ZERO); // never completed: failed its client
          case CLIENT_GONE -> { } // nothing about the targets
        }
      }
      case Outcome.Rejected rejected -> { } // the client's own error
      case Outcome.Exhausted exhausted -> tiers.failed(feature, alias, Duration.ofNanos(ticker.nanos() - startNanos));
      case Outcome.Cancelled cancelled -> { }
    }
  }

  /**
   * @param cancelledAs the outcome word of a cancelled run: {@code client_gone}, or {@code lease_lost} / {@code cancelled} for a job
   * @param sendTimedOut whether the server's send timeout cut the client's connection
   */
  private void countAndTrace(long startNanos, InboundRequest in, Admission.Proceed admitted, Outcome outcome,
      String cancelledAs, boolean sendTimedOut) {
    parts.run("metrics", () -> count(in, admitted, outcome));
    if (tracing.enabled()) {
      parts.run("trace", () -> trace(startNanos, in, admitted.tier(), outcome, usage(outcome), cancelledAs,
          sendTimedOut));
    }
  }

  /** The tokens an outcome's answer reported: none but for an answer (a JSON 200, or a stream's events). */
  private static TokenUsage usage(Outcome outcome) {
    return switch (outcome) {
      case Outcome.Answered json -> json.answered().response().status() == 200
          ? json.answered().response().usage() // read when the answer's shape was checked
          : TokenUsage.NONE;
      case Outcome.Streamed stream -> stream.totalUsage();
      case Outcome.Exhausted exhausted -> TokenUsage.NONE;
      case Outcome.Rejected rejected -> TokenUsage.NONE;
      case Outcome.Cancelled cancelled -> TokenUsage.NONE;
    };
  }

  /** The outcome's metrics: retries, time to first token, recoveries, usage and cost, a T2 miss. */
  private void count(InboundRequest in, Admission.Proceed admitted, Outcome outcome) {
    if (admitted.cacheMissed()) {
      metrics.cacheMiss();
    }
    switch (outcome) {
      case Outcome.Answered json -> {
        metrics.upstream(json.answered().steps());
        if (json.answered().response().status() == 200) {
          metrics.usage(in.feature(), admitted.tier(), json.answered().target().model(), usage(outcome));
        }
      }
      case Outcome.Streamed stream -> {
        List<AttemptRecord> steps = stream.first().steps();
        metrics.upstream(steps);
        metrics.streamed(in.alias().alias(), stream.first().target(), steps.getLast().took(), stream.recoveries());
        for (TargetUsage part : stream.usage()) { // a continuation on another model counts and is priced as that model
          metrics.usage(in.feature(), admitted.tier(), part.target().model(), part.usage());
        }
      }
      case Outcome.Exhausted exhausted -> metrics.upstream(exhausted.steps());
      case Outcome.Rejected rejected -> { }
      case Outcome.Cancelled cancelled -> { }
    }
  }

  /** The request's spans: the request, each attempt and each backoff wait. */
  private void trace(long startNanos, InboundRequest in, Tier tier, Outcome outcome, TokenUsage usage,
      String cancelledAs, boolean sendTimedOut) {
    Duration took = Duration.ofNanos(ticker.nanos() - startNanos);
    RequestTrace trace = switch (outcome) {
      case Outcome.Answered json -> new RequestTrace(in.request().headers(), in.alias().alias(), in.feature(), tier,
          took, json.answered().steps(), json.answered().target(), json.answered().fallback(), 0,
          json.answered().response().status(), "ok", usage);
      case Outcome.Streamed stream -> new RequestTrace(in.request().headers(), in.alias().alias(), in.feature(), tier,
          took, stream.first().steps(), stream.last(), stream.first().fallback(), stream.recoveries(), 200,
          Responder.streamWord(stream.ended(), sendTimedOut), usage);
      case Outcome.Exhausted exhausted -> new RequestTrace(in.request().headers(), in.alias().alias(), in.feature(),
          tier, took, exhausted.steps(), null, false, 0, exhausted.failure().error().status(), "exhausted", usage);
      case Outcome.Rejected rejected -> new RequestTrace(in.request().headers(), in.alias().alias(), in.feature(),
          tier, took, List.of(), rejected.target(), false, 0, rejected.failure().status(), "rejected", usage);
      case Outcome.Cancelled cancelled -> new RequestTrace(in.request().headers(), in.alias().alias(), in.feature(),
          tier, took, List.of(), null, false, 0, 499, cancelledAs, usage);
    };
    tracing.record(trace);
  }

  /** Writes the access record of a request answered without going upstream; a cached answer is a success. */
  void recordLocal(long startNanos, InboundRequest in, Admission.Decision decision, Sent sent) {
    if (decision instanceof Admission.FromCache) {
      parts.run("slo", () -> tiers.answered(in.feature(), in.alias().alias(), null));
    }
    log(startNanos, in, decision.tier(), sent);
    if (tracing.enabled()) {
      parts.run("trace", () -> tracing.record(new RequestTrace(in.request().headers(), in.alias().alias(),
          in.feature(), decision.tier(), Duration.ofNanos(ticker.nanos() - startNanos), List.of(), null, false, 0,
          sent.status(), sent.outcome().split(" ", 2)[0], TokenUsage.NONE)));
    }
  }

  /** A stream's latency for the SLO: to its first token, retries and backoffs included. */
  private static Duration toFirstToken(Outcome.Streamed stream) {
    Duration total = Duration.ZERO;
    for (AttemptRecord step : stream.first().steps()) {
      total = total.plus(step.waited()).plus(step.took());
    }
    return total;
  }

  /**
   * Runs stage 7 ({@code respond}), then {@code books} (the bookkeeping no answer waits for:
   * {@link #keepBooks}), then writes the request's access record ({@link #log(long, InboundRequest,
   * Tier, Sent, List, String)}), its duration read when {@code respond} returned — all in a {@code
   * finally}: when {@code respond} throws, the books are still kept, the record is {@link
   * Sent#unsent} (the call's target and calls, the status already sent or the server's 500,
   * outcome {@code error}) and the exception goes on.
   *
   * @param statusSent the status the client was sent so far (0 before any)
   * @param books run once {@code respond} has returned or thrown; must not throw ({@link GuardedParts})
   * @return what {@code respond} sent
   */
  Sent respondThenLog(long startNanos, InboundRequest in, Tier tier, List<AttemptRecord> steps, String route,
      Outcome outcome, IntSupplier statusSent, Supplier<Sent> respond, Runnable books) {
    Sent sent = null;
    RuntimeException failed = null;
    try {
      sent = respond.get();
      return sent;
    } catch (RuntimeException e) {
      failed = e;
      throw e;
    } finally {
      long answeredNanos = ticker.nanos(); // the time the client waited, not the books' too
      books.run();
      log(startNanos, answeredNanos, in, tier, sent != null ? sent : Sent.unsent(outcome, statusSent.getAsInt(), failed),
          steps, route, Endpoint.of(in.path()));
    }
  }

  /** Writes the access record of an admitted request that made no upstream call. */
  void log(long startNanos, InboundRequest in, Tier tier, Sent sent) {
    log(startNanos, in, tier, sent, List.of(), null);
  }

  /**
   * Writes the access record of an admitted request, with the cause of its tier below T0, the
   * steps of its first attempts (both calls of a hedged pair show) and its route explanation
   * (null when not routed), and counts it in the metrics.
   */
  void log(long startNanos, InboundRequest in, Tier tier, Sent sent, List<AttemptRecord> steps, String route) {
    log(startNanos, ticker.nanos(), in, tier, sent, steps, route, Endpoint.of(in.path()));
  }

  /**
   * Writes the access record of a queued request's try (an outage-queue job or a batch request),
   * counted under {@link Endpoint#QUEUED}: its path is {@code /v1/messages}, but no client waits on
   * it, and its counts must not reach the client-facing SLO (newcomer trial, session 11: a backlog
   * retrying in an outage added 5xx to the burn-rate alerts' counts, a draining batch diluted them).
   */
  void logQueued(long startNanos, InboundRequest in, Tier tier, Sent sent, List<AttemptRecord> steps, String route) {
    log(startNanos, ticker.nanos(), in, tier, sent, steps, route, Endpoint.QUEUED);
  }

  /** @param endNanos when the request ended for its client, on the ticker: one reading for the record and the metrics */
  private void log(long startNanos, long endNanos, InboundRequest in, Tier tier, Sent sent, List<AttemptRecord> steps,
      String route, Endpoint endpoint) {
    long took = endNanos - startNanos;
    // admitted: a POST on /v1/messages (the dispatcher answers any other method 405), and so is a queued try
    AccessRecord r = new AccessRecord(in.id(), "POST", in.path(), in.alias().alias(), in.stream(), tier,
        sent.status(), sent.target(), sent.calls(), sent.fallback(), took / 1_000_000, sent.outcome(),
        cause(in, tier), steps, route);
    parts.run("access_log", () -> log.write(r));
    parts.run("metrics", () -> {
      metrics.request(new ServedRequest(r.alias(), in.feature(), tier, r.status(), r.outcomeWord(), r.fallback(),
          r.calls(), Duration.ofNanos(took), endpoint));
      String hedge = r.hedge();
      if (hedge != null) {
        metrics.hedge(hedge);
      }
    });
  }

  /** Why {@code tier} is below T0 for the request's feature and alias (null at T0, or when it cannot be read). */
  private String cause(InboundRequest in, Tier tier) {
    if (tier == null || tier == Tier.T0) {
      return null;
    }
    String[] cause = new String[1];
    parts.run("tier_cause", () -> cause[0] = tiers.cause(in.feature(), in.alias().alias()));
    return cause[0];
  }

  /**
   * Writes the access record of a request refused before admission (at ingress, at the door, by
   * Levee's own 404): {@code refused <type>}, and the error's {@link ApiError#reason} (never its
   * message); {@code method} and {@code path} are {@code -} when not known.
   *
   * @param status the status sent
   */
  void logRefused(long startNanos, String id, String method, String path, int status, ApiError error) {
    logUnadmitted(startNanos, id, method, path, status, "refused " + error.type(), error.reason());
  }

  /**
   * Writes the access record of an exchange answered before admission: {@code refused <type>}, or
   * {@code replayed} (its idempotency key's first answer); metrics count the outcome's first word,
   * and a refusal's reason.
   *
   * @param refusal why it was refused; null when it was not
   */
  void logUnadmitted(long startNanos, String id, String method, String path, int status, String outcome,
      RefusalReason refusal) {
    long took = ticker.nanos() - startNanos;
    parts.run("access_log", () -> log.write(AccessRecord.unadmitted(id, method, path, status, took / 1_000_000,
        outcome, refusal)));
    parts.run("metrics", () -> metrics.request(new ServedRequest(null, null, null, status, outcome.split(" ", 2)[0],
        false, 0, Duration.ofNanos(took), Endpoint.of(path), refusal)));
  }
}
