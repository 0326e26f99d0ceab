package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.anthropic.server.RequestGuard;
import dev.levee.anthropic.stream.StreamEngine;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.anthropic.upstream.Upstreams;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.cache.SemanticCache;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.health.Metrics;
import dev.levee.gateway.jobs.InteractiveTraffic;
import dev.levee.gateway.jobs.JobExecutor;
import dev.levee.gateway.jobs.JobWorkers;
import dev.levee.core.chain.ReservedPermit;
import dev.levee.gateway.jobs.JobRequest;
import dev.levee.gateway.jobs.OutageQueue;
import dev.levee.gateway.health.TargetStats;
import dev.levee.gateway.route.ScoreRouting;
import dev.levee.gateway.tier.TierBoard;
import dev.levee.gateway.trace.Tracing;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.NanoTime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/messages} (and {@code /v1/messages/count_tokens}), one request top to bottom
 * through the seven stages of DESIGN.md, each a class handing the next a small value:
 *
 * <ol>
 *   <li>{@link Ingress} — read and check the body; resolve alias and feature → {@link InboundRequest};
 *   <li>{@link Admission} — the feature's tier, a fresh cached answer at T2 → a decision;
 *   <li>{@link Planner} — targets (in the scoring router's order for {@code route: score}), tier
 *       edits, one deadline, cache TTL, hedge delay → a {@link Plan};
 *   <li>{@link Execution} — pacing and cooldowns, then the core {@link FallbackChain}: a JSON
 *       call, or a stream up to its commit point, the first call hedged when the plan says so;
 *   <li>{@link Relay} — the answer, or the stream relayed with recovery → an {@link Outcome};
 *   <li>{@link Recorder} — settle the call; once the answer is written, write it back to the cache
 *       and keep the books, then one access record;
 *   <li>{@link Responder} — every header and body, stale-if-error; and the {@link
 *       CancellationScope} under which a client leaving cuts execute and relay short. A stream's
 *       end is the one word it says early: written as soon as the relay has ended and the scope
 *       closed, before stage 6. A JSON answer is written once its call is settled, before the
 *       rest of stage 6: no client waits on the bookkeeping.
 * </ol>
 *
 * <p>A request refused at ingress, answered by Levee or queued at admission, skips the stages
 * between. Queued work runs through the same stages without a client ({@link #runJob}).
 */
public final class MessagesHandler {

  private static final Logger LOG = LoggerFactory.getLogger(MessagesHandler.class);
  private static final ThreadFactory STREAM_THREADS = Thread.ofVirtual().name("levee-stream-", 0).factory();

  private final RequestIds ids;
  private final Ingress ingress;
  private final Admission admission;
  private final Planner planner;
  private final Execution execution;
  private final Relay relay;
  private final Recorder recorder;
  private final Responder responder;
  private final Ticker ticker;
  private final StreamsInFlight streams = new StreamsInFlight();
  private final RequestsInFlight inFlight = new RequestsInFlight(); // to their stage 7: what a shutdown waits for
  private volatile InteractiveTraffic traffic = InteractiveTraffic.NONE;

  /**
   * The gateway's shared parts the handler is wired from.
   *
   * @param chain the fallback chain; hedged requests need one made {@link FallbackChain#withHedging}
   * @param stats every target's recent calls (the p95 of {@code hedge: { after: p95 }})
   */
  public record Parts(GatewayConfig config, Aliases aliases, RequestIds ids, FallbackChain chain, StreamEngine streams,
      Upstreams upstreams, TierBoard tiers, ResponseCache cache, SemanticCache semantic, RandomGenerator random,
      Metrics metrics, OutageQueue outage, TargetStats stats, ScoreRouting routing, Tracing tracing) {}

  public static MessagesHandler create(Parts p) {
    return new MessagesHandler(p);
  }

  private MessagesHandler(Parts p) {
    GatewayConfig config = p.config();
    CachedAnswers cache = new CachedAnswers(p.cache(), p.semantic());
    this.ids = p.ids();
    this.ticker = p.upstreams().ticker();
    this.ingress = new Ingress(config, p.aliases(), config.features().keySet());
    this.admission = new Admission(in -> p.tiers().tier(in.feature(), in.alias().alias(), in.alias().targets()), cache,
        p.outage() == null ? feature -> false : p.outage()::queues,
        (in, tier) -> p.tiers().probe(in.feature(), in.alias().alias(), tier));
    this.planner = new Planner(config.policy().deadline(), ticker, p.stats() == null ? t -> null : p.stats()::snapshot,
        p.routing());
    this.execution = new Execution(p.chain(), p.streams(), p.upstreams(), p.tiers(), p.routing());
    this.relay = new Relay(p.streams());
    this.recorder = new Recorder(cache, p.tiers(), new AccessLog(), p.metrics(), p.tracing(), ticker);
    this.responder = new Responder(new LocalAnswers(p.random()), cache,
        config.tiers().healthyFor().plus(config.tiers().evaluateEvery()), p.outage(),
        new LateWatches(p.upstreams().watchdog(), ticker));
  }

  /**
   * The refusal ingress gives a client request on its headers alone (a {@code content-type} that is
   * not JSON, a compressed body), or empty: asked before the server reads the body, so such a
   * request is answered without {@code 100 Continue} ({@code RequestGuard.HeadAnswers}).
   */
  public static Optional<ApiError> refusalOnHead(Request request) {
    return Ingress.refusalOnHead(request.getHeaders());
  }

  public void handle(Request request, Response response, Callback callback) {
    enter();
    boolean streaming = false;
    try {
      streaming = handleCounted(request, response, callback);
    } finally {
      if (!streaming) {
        exit(); // a stream's own thread reports its end
      }
    }
  }

  /**
   * Records a request the server refused before this handler saw it ({@link
   * RequestGuard.Refusals}: a concurrency limit, shutdown, a slow or unreadable body, headers too
   * slow, a request Jetty could not parse) as a refusal at ingress is recorded: one access-log line
   * (method and path {@code -} when unknown), the {@code refused} outcome in metrics.
   *
   * @param beganNanos when the request's first byte arrived, on Jetty's clock ({@link NanoTime})
   */
  public void refusedAtTheDoor(String method, String path, long beganNanos, String id, ApiError error) {
    long waited = NanoTime.since(beganNanos); // a 408 waited for the headers or the body
    recorder.logRefused(ticker.nanos() - waited, id, method == null ? "-" : method, path == null ? "-" : path,
        error.status(), error);
  }

  /**
   * Records a request whose client went away while the server's door read its body ({@link
   * RequestGuard.Refusals#clientGone}: the connection closed or reset mid-upload) as a client that
   * left mid-stream is recorded: one access-log line with status 499 and outcome {@code
   * client_gone}, counted under that outcome in metrics — not as a refusal, and no answer was sent.
   *
   * @param beganNanos when the request's first byte arrived, on Jetty's clock ({@link NanoTime})
   */
  public void clientGoneAtTheDoor(String method, String path, long beganNanos, String id) {
    recorder.logUnadmitted(ticker.nanos() - NanoTime.since(beganNanos), id, method, path, 499, "client_gone", null);
  }

  /**
   * What the server's door tells of the requests it ends before this handler sees them, for the
   * access log and metrics: its refusals ({@link #refusedAtTheDoor(String, String, long, String,
   * ApiError)}) and the clients that left mid-upload ({@link #clientGoneAtTheDoor}).
   */
  public RequestGuard.Refusals door() {
    return new RequestGuard.Refusals() {
      @Override
      public void refused(String method, String path, long beganNanos, String requestId, ApiError error) {
        refusedAtTheDoor(method, path, beganNanos, requestId, error);
      }

      @Override
      public void clientGone(String method, String path, long beganNanos, String requestId) {
        clientGoneAtTheDoor(method, path, beganNanos, requestId);
      }
    };
  }

  /** {@link #refusedAtTheDoor(String, String, long, String, ApiError)} for a request Levee's dispatcher refused. */
  public void refusedAtTheDoor(Request request, String id, ApiError error) {
    refusedAtTheDoor(request.getMethod(), request.getHttpURI().getPath(), request.getBeginNanoTime(), id, error);
  }

  /**
   * Writes the access record and metrics of an exchange its idempotency key answered without the
   * pipeline: {@code replayed} (the first answer again) or {@code refused <type>} (409, 422, 400,
   * and the door's 408 and 400 for a body it read) with the refusal's reason.
   *
   * @param refusal why it was refused; null for a replay
   */
  public void answeredByIdempotencyKey(Request request, Response response, int status, String outcome,
      RefusalReason refusal) {
    answeredOutsideThePipeline(request, response, status, outcome, refusal, null);
  }

  /**
   * Writes the access record and metrics of an exchange answered by a handler outside the
   * pipeline (a job's state, the Message Batches API) in the shape of a refusal's: no alias, no
   * tier; its path's {@link dev.levee.gateway.health.Endpoint} labels the metrics.
   *
   * @param status the status sent (499 when the client went away first)
   * @param outcome a word first ({@code ok}, {@code refused}, {@code error}, {@code client_gone}), then details
   * @param refusal why a {@code refused} exchange was refused ({@link RefusalReason#OTHER} when the
   *     handler did not say); null for any other outcome
   * @param upstreamId the upstream's {@code request-id} of an answer relayed as the upstream gave it
   *     ({@code /v1/models/{id}}), named after the outcome as on the Messages path ({@code ok
   *     upstream_id=req_…}, {@link Responder#upstreamId(String)}); null for an answer of Levee's own
   */
  public void answeredOutsideThePipeline(Request request, Response response, int status, String outcome,
      RefusalReason refusal, String upstreamId) {
    long took = NanoTime.since(request.getBeginNanoTime()); // Jetty's clock: from the request's arrival
    recorder.logUnadmitted(ticker.nanos() - took, response.getHeaders().get(LeveeHeaders.REQUEST_ID),
        request.getMethod(), request.getHttpURI().getPath(), status, outcome + Responder.upstreamId(upstreamId), refusal);
  }

  /** Reports every client request (queued work not counted) to {@code traffic}: the worker pool steps aside for them. */
  public void reportTrafficTo(InteractiveTraffic traffic) {
    this.traffic = traffic;
  }

  /**
   * Waits until every client request has ended its stage 7, for at most {@code within}: for a
   * shutdown, once the server has drained (a stream's exchange completes before its stage 6, so
   * the drain does not wait for its bookkeeping).
   *
   * @return whether none is left; false when {@code within} ran out first
   * @throws InterruptedException when interrupted while waiting
   */
  public boolean awaitRequestsEnded(Duration within) throws InterruptedException {
    return inFlight.awaitNone(within);
  }

  private void enter() {
    inFlight.enter();
    traffic.enter();
  }

  private void exit() {
    traffic.exit();
    inFlight.exit();
  }

  /**
   * Returns true when the request goes on as a stream on a virtual thread of its own ({@link
   * #onItsOwnThread}), which completes the exchange and reports its end to {@code traffic}.
   */
  private boolean handleCounted(Request request, Response response, Callback callback) {
    long start = ticker.nanos();
    String named = response.getHeaders().get(LeveeHeaders.REQUEST_ID); // by the dispatcher
    String id = named != null ? named : ids.next();
    ClientResponse client = new ClientResponse(response, callback);
    InboundRequest in;
    try {
      in = ingress.read(request, id);                                              // 1. ingress
    } catch (Ingress.Refused refused) {
      responder.refuse(client, id, refused.error());
      recorder.logRefused(start, id, request.getMethod(), request.getHttpURI().getPath(), client.status(),
          refused.error());
      return false;
    }
    Admission.Decision decision = admission.admit(in);                               // 2. admission
    if (decision instanceof Admission.Queue queue) { // on-outage: queue, at T3 or in degraded mode
      Optional<Sent> queued = responder.queue(client, in, queue);
      if (queued.isPresent()) {
        recorder.log(start, in, queue.tier(), queued.get());
        return false;
      }
      decision = queue.otherwise();
    }
    if (!(decision instanceof Admission.Proceed admitted)) {
      recorder.recordLocal(start, in, decision, responder.answerLocally(client, in, decision));
      return false;
    }
    Plan plan = planner.plan(in, admitted);                                          // 3. plan
    String route = plan.explainRoute();
    CancellationScope scope = responder.cancellationScope(request);
    if (in.stream()) { // stages 4 to 7 on a thread of their own when many streams are in flight: see StreamsInFlight
      if (streams.enter()) {
        onItsOwnThread(() -> executeRelayRecordRespond(start, client, in, admitted, plan, route, scope, true), scope,
            client, id);
        scope.letGoOfCurrentThread(); // Jetty's thread ends here
        return true;
      }
      try {
        executeRelayRecordRespond(start, client, in, admitted, plan, route, scope, false);
      } finally {
        streams.exit();
      }
      return false;
    }
    executeRelayRecordRespond(start, client, in, admitted, plan, route, scope, false);
    return false;
  }

  /**
   * Stages 4 to 7 (closing {@code scope} once the relay has ended, or when execute fails).
   *
   * @param ownThread whether this runs on a stream's own thread ({@link #onItsOwnThread}), whose
   *     relay may wait with no thread while many streams are in flight
   * @return false when the relay went on to wait with no thread: a later thread ends the stages
   */
  private boolean executeRelayRecordRespond(long start, ClientResponse client, InboundRequest in,
      Admission.Proceed admitted, Plan plan, String route, CancellationScope scope, boolean ownThread) {
    ChainResult<Reply> result;
    try {
      result = execution.execute(in, plan, scope.cancellation());                    // 4. execute
    } catch (RuntimeException | Error e) {
      scope.close();
      throw e;
    }
    Relay.Waits waits = !ownThread ? Relay.Waits.NEVER : waitsWithNoThread(scope, client, in.id(),
        ended -> recordRespond(start, client, in, admitted, plan, route, result, ended));
    Outcome outcome = relayed(scope, client, () -> relay.relay(result, in.id(), plan, admitted.cache().mayStore(), scope.cancellation(),
        (first, calls) -> responder.startStream(client, in, admitted, first, calls, plan), waits)); // 5. relay
    if (outcome == null) {
      return false;
    }
    recordRespond(start, client, in, admitted, plan, route, result, outcome);
    return true;
  }

  /**
   * Stages 6 and 7: the call settled, the answer sent, then the books kept and the access record
   * written (none of which throws: {@link dev.levee.gateway.health.GuardedParts}) — in a {@code
   * finally} ({@link Recorder#respondThenLog}), so that an answer whose writing failed is still
   * recorded, as the {@code error} it became ({@link Sent#unsent}). No answer waits for the books
   * (the cache write-back's key is a pass over the whole request body). A JSON answer's handler
   * runs on the server's thread for its connection, which reads the connection's next request once
   * the handler returns: that request finds this answer in the cache.
   */
  private void recordRespond(long start, ClientResponse client, InboundRequest in, Admission.Proceed admitted,
      Plan plan, String route, ChainResult<Reply> result, Outcome outcome) {
    recorder.settle(outcome);                                                        // 6. record: the call
    recorder.respondThenLog(start, in, admitted.tier(), result.steps(), route, outcome, client::status,
        () -> responder.respond(client, in, admitted, outcome, plan),                // 7. respond
        () -> recorder.keepBooks(start, in, admitted, plan, outcome,
            client.endedBySendTimeout()));                                           // 6. record: the books
  }

  /**
   * The relay's outcome, closing {@code scope} once the relay has ended or failed (null: it waits
   * with no thread). A stream that ended is ended for the client here, right after the scope
   * closes and before stage 6 ({@link Responder#endStream}): its last events and the body's last
   * chunk in one write, not waiting on the bookkeeping.
   */
  private Outcome relayed(CancellationScope scope, ClientResponse client, Supplier<Outcome> relay) {
    Outcome outcome;
    try {
      outcome = relay.get();
    } catch (RuntimeException | Error e) {
      scope.close();
      throw e;
    }
    if (outcome != null) {
      scope.close();
      responder.endStream(client, outcome);
    }
    return outcome;
  }

  /**
   * Runs a stream request's stages 4 to 7 on a new virtual thread while Jetty's thread returns
   * (when {@link StreamsInFlight} says so: many streams in flight; the exchange stays open until
   * its callback completes). A slow stream spends its life parked in a
   * read of the upstream, and what a parked virtual thread costs is its frozen stack, whose chunks
   * keep the size of the thread's deepest park (issue 11: 10,000 streams in {@code -Xmx256m}).
   * Jetty's thread has parked deep already (reading the body, under Jetty's own frames), so the
   * first attempts' waits for the head and the first delta, all at once when 10,000 streams open
   * together, would freeze on its chunks; on a thread of their own they start from a fresh stack
   * (session 5: ~7.9 KiB mean per waiting stream on Jetty's thread). With more streams still in
   * flight it waits between deltas with no thread at all ({@link #waitsWithNoThread}).
   */
  private void onItsOwnThread(BooleanSupplier stages, CancellationScope scope, ClientResponse client, String id) {
    try {
      onAFreshThread(stages, scope, client, id);
    } catch (RuntimeException | Error e) { // never started: counted out here (traffic by handle)
      streams.exit();
      throw e;
    }
  }

  /**
   * A stream on its own thread waits for its upstream with no thread while {@link
   * StreamsInFlight#parkless()} (many streams in flight), then goes on on a fresh thread, which
   * runs {@code recordRespond} (stages 6 and 7) once the relay has ended.
   */
  private Relay.Waits waitsWithNoThread(CancellationScope scope, ClientResponse client, String id,
      Consumer<Outcome> recordRespond) {
    return new Relay.Waits() {
      @Override
      public boolean letGo() {
        return streams.parkless();
      }

      @Override
      public void resume(Supplier<Outcome> rest) {
        try {
          onAFreshThread(() -> {
            Outcome outcome = relayed(scope, client, rest);
            if (outcome == null) {
              return false;
            }
            recordRespond.accept(outcome);
            return true;
          }, scope, client, id);
        } catch (RuntimeException | Error e) { // no thread to go on with (out of memory): end it rather than hang
          LOG.error("no thread to relay stream request {} on; it is ended", id, e);
          scope.cancellation().cancel(); // closes the upstream, as a client leaving does
          scope.close();
          client.abort(e);
          streams.exit();
          exit();
        }
      }
    };
  }

  /**
   * Runs {@code stages} on a new virtual thread; when they return true (the stream ended, not
   * waiting with no thread) or fail, counts the stream out.
   */
  private void onAFreshThread(BooleanSupplier stages, CancellationScope scope, ClientResponse client, String id) {
    STREAM_THREADS.newThread(() -> {
      scope.interruptCurrentThread(); // a client leaving now interrupts this thread (a wait, a backoff)
      boolean ended = true;
      try {
        ended = stages.getAsBoolean();
      } catch (RuntimeException | Error e) { // a bug: answered as HttpDispatcher answers one on Jetty's thread
        LOG.error("unexpected failure on stream request {}", id, e);
        if (client.status() == 0) {
          client.send(500, new HashMap<>(), "application/json",
              LeveeErrors.UNEXPECTED.toBytes(id));
        } else {
          client.abort(e);
        }
      } finally {
        if (ended) {
          streams.exit();
          exit();
        } else {
          scope.letGoOfCurrentThread(); // it waits with no thread: a fresh one goes on
        }
      }
    }).start();
  }

  /**
   * Runs a queued request (a job) as {@link #handle} runs a client's, without a client: ingress
   * checks and resolves it, admission takes its feature's tier, the planner plans it, execute skips
   * or waits for cooling targets and runs the chain (breakers, retry budget, one deadline), the
   * recorder settles the call and writes the access record. One path for interactive and queued
   * work — except that a job's try feeds no SLO: it is not what a client got ({@code
   * Recorder#recordJob}) — and that a job is never reduced: at T1 it is planned as at T0 (the
   * alias's whole chain, its own {@code max_tokens}, thinking as at T0). Queued work is not
   * latency-bound; it was accepted to wait out trouble, so it gets the answer it asked for or
   * waits (T2 and T3 hold it), never a smaller model's or a capped one in its place.
   *
   * <p>An answer the chain settled on (a 200, or a client error no retry fixes) is {@link
   * JobExecutor.Finished}; an exhausted chain, a cooldown that does not fit the deadline, or a
   * feature at T2/T3 (its work waits, see {@code PauseGate}) is {@link JobExecutor.RetryLater}.
   *
   * @param apiKey the client's key to send, or null when the upstream has its own
   * @param lost fires when the worker lost its claim on the job: closes the upstream calls and
   *     stops the chain, as a client going away does (the access record says {@code lease_lost}, or
   *     {@code cancelled} when its reason is {@link JobWorkers#CANCELLED}: an operator cancelled it;
   *     {@code shutdown} for {@link JobWorkers#SHUTDOWN}: the gateway stopped past its grace)
   * @param trial the half-open trial permit the worker took for this job ({@link ReservedPermit#NONE}
   *     when it is not a trial): the chain's first call to that target goes out under it; the
   *     worker releases it after the run
   */
  public JobExecutor.Outcome runJob(JobRequest job, String apiKey, Cancellation lost, ReservedPermit trial) {
    long start = ticker.nanos();
    Map<String, List<String>> headers = new HashMap<>(job.headers());
    if (apiKey != null) {
      headers.put("x-api-key", List.of(apiKey));
    }
    InboundRequest in;
    try {
      in = ingress.replay(ids.next(), job.path(), job.query(), headers, job.body());           // 1. ingress
    } catch (Ingress.Refused refused) {
      return JobAnswers.refused(refused.error());
    }
    if (in.stream()) { // batches and the outage queue never keep a stream
      return JobAnswers.refused(ApiError.invalidRequest("a queued request cannot stream"));
    }
    Admission.Decision decided = admission.decide(in);                                         // 2. admission
    if (!(decided instanceof Admission.Proceed proceed)
        || proceed.tier() == Tier.T2) { // T2 serves the cache and T3 nothing: queued work waits
      return new JobExecutor.RetryLater("held: alias " + in.alias().alias() + " of feature " + in.feature()
          + " is at " + decided.tier(), null);
    }
    Admission.Proceed admitted = proceed.tier() == Tier.T0 ? proceed
        : new Admission.Proceed(Tier.T0, proceed.cache(), false); // never reduced: planned, answered and logged as T0
    Plan plan = planner.plan(in, admitted);                                                    // 3. plan
    ChainResult<Reply> result = execution.execute(in, plan, lost, trial);                            // 4. execute
    Outcome outcome = relay.relay(result, in.id(), plan, admitted.cache().mayStore(), lost,    // 5. relay
        (first, calls) -> { throw new IllegalStateException("a queued request is never a stream"); },
        Relay.Waits.NEVER);
    String stoppedAs = JobWorkers.CANCELLED.equals(lost.reason()) || JobWorkers.SHUTDOWN.equals(lost.reason())
        ? lost.reason() : JobAnswers.LEASE_LOST;
    recorder.recordJob(start, in, admitted, plan, outcome, stoppedAs);                         // 6. record (no SLO)
    JobAnswers.Answer answer = JobAnswers.of(outcome, admitted.tier(), jobId(job), stoppedAs); // 7. the job's answer
    recorder.logQueued(start, in, admitted.tier(), answer.sent(), result.steps(), plan.explainRoute());
    return answer.outcome();
  }

  /** The id the workers gave the run ({@code x-levee-job}), or null. */
  private static String jobId(JobRequest job) {
    List<String> id = job.headers().get(LeveeHeaders.JOB);
    return id == null || id.isEmpty() ? null : id.getFirst();
  }
}
