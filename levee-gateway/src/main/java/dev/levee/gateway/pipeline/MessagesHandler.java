package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RetryAfter;
import dev.levee.anthropic.server.DisconnectWatch;
import dev.levee.anthropic.stream.MessageAssembler;
import dev.levee.anthropic.stream.ResilientStream;
import dev.levee.anthropic.stream.StreamEngine;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Headers;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.anthropic.upstream.Upstreams;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Failure;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.Routes;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.cache.SemanticCache;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.health.Metrics;
import dev.levee.gateway.jobs.OutageQueue;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.random.RandomGenerator;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code POST /v1/messages} (and {@code /v1/messages/count_tokens}), top to bottom:
 *
 * <ol>
 *   <li><b>ingress</b> — read and validate the body ({@link Ingress});
 *   <li><b>admission</b> — the feature's tier: a cached or static answer, a refusal, or a plan
 *       for the upstream ({@link Admission});
 *   <li><b>execute</b> — the fallback chain, one deadline, one attempt per call: a JSON call
 *       ({@link dev.levee.anthropic.upstream.JsonAttempt}) or a stream up to its commit point ({@link
 *       StreamEngine});
 *   <li><b>relay</b> — the JSON answer ({@link JsonRelay}) or the resilient stream ({@link
 *       StreamRelay}); a finished answer is written back to the cache;
 *   <li><b>respond</b> — {@code x-levee-*} headers; when every target failed, a cached answer as
 *       the last resort, else one Anthropic-shaped error; then the access log.
 * </ol>
 *
 * <p>A client that goes away cancels everything in flight; that is no upstream failure.
 */
public final class MessagesHandler {

  private final Ingress ingress;
  private final Routes routes;
  private final Admission admission;
  private final FallbackChain chain;
  private final Upstreams upstreams;
  private final StreamEngine streams;
  private final LeveeAnswers answers;
  private final Duration deadline;
  private final Duration failClosedRetryAfter;
  private final Ticker ticker;
  private final AccessLog log;
  private final OutageQueue outage;

  private MessagesHandler(Ingress ingress, Routes routes, Admission admission, FallbackChain chain, Upstreams upstreams,
      StreamEngine streams, LeveeAnswers answers, Duration deadline, Duration failClosedRetryAfter, Ticker ticker,
      AccessLog log, OutageQueue outage) {
    this.outage = outage;
    this.log = log;
    this.ingress = ingress;
    this.routes = routes;
    this.admission = admission;
    this.chain = chain;
    this.upstreams = upstreams;
    this.streams = streams;
    this.answers = answers;
    this.deadline = deadline;
    this.failClosedRetryAfter = failClosedRetryAfter;
    this.ticker = ticker;
  }

  /** The gateway's shared parts the handler is wired from. */
  public record Parts(GatewayConfig config, Routes routes, FallbackChain chain, StreamEngine streams,
      Upstreams upstreams, TierBoard tiers, ResponseCache cache, SemanticCache semantic, RandomGenerator random,
      Metrics metrics, OutageQueue outage) {}

  public static MessagesHandler create(Parts p) {
    GatewayConfig config = p.config();
    return new MessagesHandler(
        new Ingress(config.server().maxBody()),
        p.routes(),
        new Admission(config, p.tiers(), p.cache(), p.semantic()),
        p.chain(),
        p.upstreams(),
        p.streams(),
        new LeveeAnswers(p.random()),
        config.policy().deadline(),
        config.tiers().healthyFor().plus(config.tiers().evaluateEvery()),
        p.upstreams().ticker(),
        new AccessLog(p.metrics()), p.outage());
  }

  public void handle(Request request, Response response, Callback callback) {
    ClientResponse client = new ClientResponse(response, callback);
    long start = ticker.nanos();
    String id = ingress.nextId();
    client.header(LeveeHeaders.REQUEST_ID, id);
    InboundRequest in;
    try {
      in = ingress.read(request, id);
    } catch (Ingress.Refused refused) {
      client.error(refused.error, id);
      log.refused(id, request.getHttpURI().getPath(), refused.error.status(), millisSince(start), refused.error.type());
      return;
    }
    Routes.Route route = routes.resolve(in.body().model());
    Admission.Decision decision = admission.admit(in, route);
    Admission.Ticket ticket = decision.ticket();
    client.header(LeveeHeaders.TIER, ticket.tier().name());
    switch (decision) {
      case Admission.FromCache hit -> {
        client.header(LeveeHeaders.CACHE, hit.cacheStatus());
        disclose(client, ticket, ticket.tier() + ": cached answer");
        answers.cached(in, ticket, hit.message(), "Served from cache while the assistant is degraded.", client);
        log.log(in, route.alias(), ticket.tier().name(), client.status(), null, 0, false, millisSince(start), "cache_" + hit.cacheStatus());
      }
      case Admission.Static s -> {
        disclose(client, ticket, "T3: static answer");
        answers.staticText(in, ticket, client);
        log.log(in, route.alias(), ticket.tier().name(), client.status(), null, 0, false, millisSince(start), "static");
      }
      case Admission.FailClosed f -> {
        disclose(client, ticket, "T3: paused");
        answers.failClosed(in, failClosedRetryAfter, client);
        log.log(in, route.alias(), ticket.tier().name(), client.status(), null, 0, false, millisSince(start), "fail_closed");
      }
      case Admission.Upstream plan -> upstream(request, in, route, plan, client, start);
    }
  }

  private void upstream(Request request, InboundRequest in, Routes.Route route, Admission.Upstream plan,
      ClientResponse client, long start) {
    if (plan.cacheStatus() != null) {
      client.header(LeveeHeaders.CACHE, plan.cacheStatus());
    }
    if (plan.ticket().degraded()) {
      disclose(client, plan.ticket(), plan.ticket().tier() + ": reduced model");
    }
    Cancellation cancellation = new Cancellation();
    DisconnectWatch watch = DisconnectWatch.start(request, cancellation::cancel);
    client.beforeEnd(watch::close);
    request.addFailureListener(failure -> cancellation.cancel());
    ChainResult<Reply> result = execute(in, plan, cancellation);
    respond(in, route, plan, result, client, cancellation, start);
  }

  private ChainResult<Reply> execute(InboundRequest in, Admission.Upstream plan, Cancellation cancellation) {
    Deadline requestDeadline = Deadline.after(deadline, ticker);
    Thread self = Thread.currentThread();
    AutoCloseable wake = cancellation.register(self::interrupt); // ends a backoff wait at once
    try {
      return in.body().stream()
          ? streams.open(plan.request(), plan.targets(), requestDeadline, cancellation)
          : chain.execute(plan.targets(), requestDeadline, false, upstreams.json(plan.request(), cancellation));
    } finally {
      try {
        wake.close();
      } catch (Exception ignored) {
        // unregistering cannot fail
      }
      Thread.interrupted(); // an interrupt meant for the chain must not leak into the relay
    }
  }

  private void respond(InboundRequest in, Routes.Route route, Admission.Upstream plan, ChainResult<Reply> result,
      ClientResponse client, Cancellation cancellation, long start) {
    int calls = result.calls();
    client.header(LeveeHeaders.ATTEMPTS, Integer.toString(calls));
    Admission.Ticket ticket = plan.ticket();
    switch (result) {
      case ChainResult.Answered<Reply> answered -> {
        client.header(LeveeHeaders.MODEL, answered.target().id())
            .header(LeveeHeaders.FALLBACK, Boolean.toString(answered.fallback()));
        String outcome;
        if (answered.response().stream() != null) {
          ResilientStream stream = streams.resilient(answered, plan.request(), plan.targets(), route.resume(), cancellation);
          MessageAssembler assembled = ticket.mayStore() ? new MessageAssembler() : null; // only for the cache
          ResilientStream.Outcome ended = StreamRelay.relay(answered.response(), stream, client,
              assembled == null ? event -> { } : assembled::accept);
          byte[] message = assembled == null || ended != ResilientStream.Outcome.COMPLETE ? null : assembled.message();
          if (message != null) {
            admission.store(ticket, message, answered.target().model(), plan.storeTtl());
          }
          outcome = "stream_" + ended.name().toLowerCase() + (stream.resumes() > 0 ? " resumes=" + stream.resumes()
              + " last=" + stream.target().id() : "");
        } else {
          if (answered.response().status() == 200) {
            admission.store(ticket, answered.response().body(), answered.target().model(), plan.storeTtl());
          }
          JsonRelay.relay(answered, client);
          outcome = "ok";
        }
        log.log(in, route.alias(), ticket.tier().name(), client.status(), answered.target().id(), calls, answered.fallback(),
            millisSince(start), outcome);
      }
      case ChainResult.Rejected<Reply> rejected -> {
        Reply reply = rejected.response();
        client.header(LeveeHeaders.MODEL, rejected.target().id());
        if (reply != null && reply.body() != null) {
          client.headers(Headers.toClient(reply.headers())).header(LeveeHeaders.SHOULD_RETRY, "false");
          client.send(reply.status(), reply.contentType(), reply.body());
        } else {
          Failure f = rejected.failure();
          client.header(LeveeHeaders.SHOULD_RETRY, "false");
          client.error(ApiError.of(f, f.message()), in.id());
        }
        log.log(in, route.alias(), ticket.tier().name(), client.status(), rejected.target().id(), calls, false, millisSince(start),
            "rejected " + rejected.failure().errorType());
      }
      case ChainResult.Exhausted<Reply> exhausted -> {
        FailureResponse failure = FailureResponse.of(exhausted);
        Optional<Admission.FromCache> lastResort = admission.staleIfError(ticket);
        if (lastResort.isPresent()) {
          client.header(LeveeHeaders.CACHE, lastResort.get().cacheStatus()).header(LeveeHeaders.REASON, failure.reason());
          disclose(client, ticket, "stale answer: every target failed");
          answers.cached(in, ticket, lastResort.get().message(),
              "Served from cache because the assistant could not be reached.", client);
          log.log(in, route.alias(), ticket.tier().name(), client.status(), null, calls, false, millisSince(start),
              "last_resort_" + lastResort.get().cacheStatus() + " " + failure.reason());
          return;
        }
        client.header(LeveeHeaders.SHOULD_RETRY, "false").header(LeveeHeaders.REASON, failure.reason());
        failure.retryAfter().ifPresent(wait -> client.header("retry-after", RetryAfter.seconds(wait)));
        if (OutageAnswer.queued(outage, in, ticket, failure.error(), client)) { // queue.on-outage
          log.log(in, route.alias(), ticket.tier().name(), client.status(), null, calls, false, millisSince(start),
              "queued " + failure.reason());
          return;
        }
        client.error(failure.error(), in.id());
        log.log(in, route.alias(), ticket.tier().name(), client.status(), null, calls, false, millisSince(start),
            "exhausted " + failure.reason());
      }
      case ChainResult.Cancelled<Reply> cancelled -> {
        client.abort(new CancellationException("client went away"));
        log.log(in, route.alias(), ticket.tier().name(), 499, null, calls, false, millisSince(start), "client_gone");
      }
    }
  }

  private static void disclose(ClientResponse client, Admission.Ticket ticket, String why) {
    if (!ticket.config().disclosure().equals("none")) {
      client.header(LeveeHeaders.DEGRADED, why);
    }
  }

  private long millisSince(long start) {
    return (ticker.nanos() - start) / 1_000_000;
  }
}
