package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RetryAfter;
import dev.levee.anthropic.server.ClientGoneException;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseWriter;
import dev.levee.anthropic.stream.ResilientStream;
import dev.levee.anthropic.upstream.Headers;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.tier.Tier;
import dev.levee.gateway.config.Disclosure;
import dev.levee.gateway.jobs.OutageQueue;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.regex.Pattern;
import org.eclipse.jetty.server.Request;

/**
 * Stage 7, respond: every header and body the client gets, decided here and nowhere else.
 *
 * <ul>
 *   <li>Levee's {@code x-levee-*} headers (DESIGN.md promise 8) on every answer, after the
 *       upstream's own (so Levee's word wins), and the feature's disclosure policy; a request
 *       the scoring router ordered carries {@code x-levee-route} (the candidates and scores);
 *   <li>the answer: the upstream's status, headers and body; a stream's head at its commit point
 *       and its end; a cached, static or fail-closed answer Levee gives itself;
 *   <li>failures: the client's own error as the upstream said it, or one Anthropic-shaped error
 *       with {@code x-should-retry: false} (Levee owns retries, promise 2), a final 429 with the
 *       {@code anthropic-ratelimit-*} of the upstream 429 that decided it ({@link
 *       FailureResponse#rateLimits}) — unless a cached answer can stand in (stale-if-error), or
 *       a fail-open feature's queue kept the request (a 200 placeholder naming the job, with
 *       neither {@code x-should-retry} nor {@code retry-after}: the work was accepted, and an SDK
 *       reading either would send it again);
 *   <li>the {@link CancellationScope} that lets a client leaving cut execute and relay short.
 * </ul>
 *
 * Thread-safe.
 */
final class Responder {

  private static final Pattern CONTROL = Pattern.compile("\\p{Cntrl}");

  /** The longest value of a header Levee sets, in characters (Jetty's whole response head is 8 KiB by default). */
  static final int MAX_HEADER_VALUE = 2048;

  private final LocalAnswers local;
  private final CachedAnswers cache;
  private final Duration failClosedRetryAfter;

  /**
   * @param failClosedRetryAfter the {@code retry-after} of a fail-closed refusal: the soonest a
   *     feature at T3 can be back (one evaluation plus {@code tiers.healthy-for})
   */
  private final OutageQueue outage; // null: no feature queues on an outage

  private final LateWatches watches;

  /** @param watches start each request's disconnect watch once it has run a while ({@link CancellationScope}) */
  Responder(LocalAnswers local, CachedAnswers cache, Duration failClosedRetryAfter, OutageQueue outage,
      LateWatches watches) {
    this.watches = watches;
    this.outage = outage;
    this.local = local;
    this.cache = cache;
    this.failClosedRetryAfter = failClosedRetryAfter;
  }

  /** A scope in which a client leaving cancels everything done for {@code request}. */
  CancellationScope cancellationScope(Request request) {
    return CancellationScope.open(request, watches);
  }

  /** Ingress refused the request. */
  void refuse(ClientResponse client, String id, ApiError error) {
    Map<String, List<String>> head = new LinkedHashMap<>();
    put(head, LeveeHeaders.REQUEST_ID, id);
    put(head, LeveeHeaders.ANSWER_REQUEST_ID, id);
    client.send(error.status(), head, "application/json", error.toBytes(id));
  }

  /** Levee answers by itself, as admission decided. */
  Sent answerLocally(ClientResponse client, InboundRequest in, Admission.Decision decision) {
    Map<String, List<String>> head = levee(in, decision.tier());
    switch (decision) {
      case Admission.FromCache hit -> {
        put(head, LeveeHeaders.CACHE, hit.answer().status());
        put(head, LeveeHeaders.DEGRADED, disclosed(in, decision.tier() + ": cached answer"));
        message(client, head, local.cached(in, hit.answer().message(), "Served from cache while the assistant is degraded."));
        return Sent.local(client.status(), "cache_" + hit.answer().status()).written(client);
      }
      case Admission.StaticText text -> {
        put(head, LeveeHeaders.DEGRADED, disclosed(in, "T3: static answer"));
        message(client, head, local.staticText(in));
        return Sent.local(client.status(), "static").written(client);
      }
      case Admission.FailClosed closed -> {
        put(head, LeveeHeaders.DEGRADED, disclosed(in, "T3: paused"));
        put(head, "retry-after", RetryAfter.seconds(failClosedRetryAfter));
        put(head, LeveeHeaders.SHOULD_RETRY, "false");
        client.send(503, head, "application/json", LocalAnswers.failClosed(in));
        return Sent.local(client.status(), "fail_closed").written(client);
      }
      case Admission.Proceed proceed -> throw new IllegalArgumentException("not answered locally: " + decision);
      case Admission.Queue queue -> throw new IllegalArgumentException("queued, not answered locally: " + decision);
    }
  }

  /**
   * Keeps the request as a job, as admission decided ({@code on-outage: queue} at T3, or degraded
   * mode), and tells the client its id; empty when it cannot be kept (then {@code
   * queue.otherwise()} applies).
   */
  Optional<Sent> queue(ClientResponse client, InboundRequest in, Admission.Queue queue) {
    Tier tier = queue.tier();
    ApiError error = tier == Tier.T3
        ? new ApiError(503, "overloaded_error", "This feature is paused while the model is unavailable.")
        : new ApiError(503, "overloaded_error", "This feature is degraded (" + tier + "); requests under priority "
            + in.config().immediatePriority() + " wait their turn.");
    Optional<OutageAnswer> queued = OutageAnswer.queue(outage, in, error);
    if (queued.isEmpty()) {
      return Optional.empty();
    }
    Map<String, List<String>> head = levee(in, tier);
    put(head, LeveeHeaders.DEGRADED, disclosed(in, tier + ": queued"));
    put(head, LeveeHeaders.JOB, queued.get().job());
    if (queued.get().status() != 200) {
      put(head, "retry-after", RetryAfter.seconds(failClosedRetryAfter));
      put(head, LeveeHeaders.SHOULD_RETRY, "false");
    }
    client.send(queued.get().status(), head, "application/json", queued.get().body());
    return Optional.of(Sent.local(client.status(), "queued " + tier + " job=" + queued.get().job()).written(client));
  }

  /**
   * Commits a stream: its head, for the answer that reached the commit point after {@code calls} calls.
   *
   * @param plan the request's plan: its route ({@code x-levee-route}) and what its tier changed ({@code x-levee-degraded})
   */
  SseWriter startStream(ClientResponse client, InboundRequest in, Admission.Proceed admitted,
      ChainResult.Answered<Reply> first, int calls, Plan plan) {
    Map<String, List<String>> head = relayed(first.response(), upstreamHead(in, admitted, calls, plan, first.target()));
    put(head, LeveeHeaders.MODEL, first.target().id());
    put(head, LeveeHeaders.FALLBACK, Boolean.toString(first.fallback()));
    put(head, LeveeHeaders.REASON, AnsweredReason.of(first.steps()));
    return client.startStream(head);
  }

  /**
   * Ends a stream whose relay has ended, before stage 6 records it: one that completed or failed
   * gets its last events (its {@code message_stop}, or an {@code event: error}) and the body's last
   * chunk in one write, so the client has the whole stream without waiting on the bookkeeping and
   * a failure there cannot cut it. Nothing for any other outcome, nor for a stream the client left
   * ({@link #respond} aborts it). {@link #respond} then writes nothing more of it.
   */
  void endStream(ClientResponse client, Outcome outcome) {
    if (outcome instanceof Outcome.Streamed stream && stream.ended() != ResilientStream.Outcome.CLIENT_GONE) {
      client.endStream();
    }
  }

  /**
   * Answers an admitted request from what going upstream came to.
   *
   * @param plan the request's plan: its route ({@code x-levee-route}) and what its tier changed ({@code x-levee-degraded})
   */
  Sent respond(ClientResponse client, InboundRequest in, Admission.Proceed admitted, Outcome outcome, Plan plan) {
    int calls = outcome.calls();
    return switch (outcome) {
      case Outcome.Answered json -> {
        Reply reply = json.answered().response();
        Map<String, List<String>> head = relayed(reply, upstreamHead(in, admitted, calls, plan, json.answered().target()));
        put(head, LeveeHeaders.MODEL, json.answered().target().id());
        put(head, LeveeHeaders.FALLBACK, Boolean.toString(json.answered().fallback()));
        put(head, LeveeHeaders.REASON, AnsweredReason.of(json.answered().steps()));
        client.send(reply.status(), head, reply.contentType(), reply.body());
        yield new Sent(client.status(), json.answered().target(), calls, json.answered().fallback(),
            "ok" + upstreamId(reply)).written(client);
      }
      case Outcome.Streamed stream -> {
        switch (stream.ended()) {
          case COMPLETE, FAILED -> client.endStream(); // ended already by endStream, before stage 6
          case CLIENT_GONE -> client.abort(new ClientGoneException());
        }
        String detail = (stream.recoveries() > 0
            ? " recoveries=" + stream.recoveries() + " last=" + stream.last().id() : "")
            + streamFailure(stream.failure());
        ResilientStream.Outcome ended = stream.ended() == ResilientStream.Outcome.COMPLETE && client.aborted()
            ? ResilientStream.Outcome.CLIENT_GONE : stream.ended(); // its end was not written: the client has no message_stop
        String how = client.endedByShutdown() // ended by the stopping server (RequestGuard)
            ? "shutdown stream" : streamWord(ended, client.endedBySendTimeout()) + detail;
        how += upstreamId(stream.first().response());
        yield new Sent(client.status(), stream.first().target(), calls, stream.first().fallback(), how);
      }
      case Outcome.Rejected rejected -> {
        Reply reply = rejected.reply();
        boolean relayed = reply != null && reply.body() != null;
        Map<String, List<String>> head = relayed
            ? relayed(reply, upstreamHead(in, admitted, calls, plan, rejected.target()))
            : upstreamHead(in, admitted, calls, plan, rejected.target());
        put(head, LeveeHeaders.MODEL, rejected.target().id());
        put(head, LeveeHeaders.SHOULD_RETRY, "false");
        if (relayed) {
          client.send(reply.status(), head, reply.contentType(), reply.body());
        } else {
          Failure f = rejected.failure();
          ApiError error = ApiError.of(f, f.message());
          client.send(error.status(), head, "application/json", error.toBytes(in.id()));
        }
        yield new Sent(client.status(), rejected.target(), calls, false,
            "rejected " + rejected.failure().errorType() + (relayed ? upstreamId(reply) : "")).written(client);
      }
      case Outcome.Exhausted exhausted -> exhausted(client, in, admitted, exhausted, plan);
      case Outcome.Cancelled cancelled -> {
        boolean stopping = client.endedByShutdown(); // the stopping server ended it (RequestGuard)
        client.abort(stopping ? new CancellationException("server shutting down") : new ClientGoneException());
        yield stopping ? new Sent(503, null, calls, false, "shutdown") : new Sent(499, null, calls, false, "client_gone");
      }
    };
  }

  /** Every target failed: a cached answer as the last resort (stale-if-error), else one error. */
  private Sent exhausted(ClientResponse client, InboundRequest in, Admission.Proceed admitted, Outcome.Exhausted exhausted,
      Plan plan) {
    FailureResponse failure = exhausted.failure();
    Target last = failure.refused(); // the last target that refused, as for a relayed error (docs/gateway.md)
    Map<String, List<String>> head = upstreamHead(in, admitted, exhausted.calls(), plan, null);
    put(head, LeveeHeaders.REASON, failure.reason());
    if (last != null) { // on every answer to "every target failed", the stale one included
      put(head, LeveeHeaders.MODEL, last.id());
    }
    Optional<CachedAnswers.Found> lastResort = cache.lastResort(admitted.cache(), in.config().semanticThreshold());
    if (lastResort.isPresent()) {
      CachedAnswers.Found found = lastResort.get();
      put(head, LeveeHeaders.CACHE, found.status());
      put(head, LeveeHeaders.DEGRADED, disclosed(in, "stale answer: every target failed"));
      message(client, head, local.cached(in, found.message(), "Served from cache because the assistant could not be reached."));
      return new Sent(client.status(), last, exhausted.calls(), false,
          "last_resort_" + found.status() + (found.semantic() ? " semantic " : " ") + failure.reason()).written(client);
    }
    Optional<OutageAnswer> queued = OutageAnswer.queue(outage, in, failure.error()); // queue.on-outage
    if (queued.isPresent()) {
      put(head, LeveeHeaders.JOB, queued.get().job());
      if (queued.get().status() == 200) { // fail-open: a placeholder message, not the answer
        // accepted work: no x-should-retry nor retry-after, which would have an SDK send it again
        put(head, LeveeHeaders.DEGRADED, disclosed(in, "queued: every target failed"));
      } else { // fail-closed: a final 503 naming the job, and when to ask for the job's answer
        put(head, LeveeHeaders.SHOULD_RETRY, "false");
        put(head, "retry-after", RetryAfter.seconds(failure.retryAfter().orElse(failClosedRetryAfter)));
      }
      client.send(queued.get().status(), head, "application/json", queued.get().body());
      return new Sent(client.status(), last, exhausted.calls(), false, "queued " + failure.reason()).written(client);
    }
    put(head, LeveeHeaders.SHOULD_RETRY, "false");
    failure.retryAfter().ifPresent(wait -> put(head, "retry-after", RetryAfter.seconds(wait)));
    failure.rateLimits().forEach(head::putIfAbsent); // a final 429: the upstream's anthropic-ratelimit-*
    client.send(failure.error().status(), head, "application/json", failure.error().toBytes(in.id()));
    return new Sent(client.status(), last, exhausted.calls(), false, "exhausted " + failure.reason()).written(client);
  }

  /**
   * The headers of every answer to an admitted request that went upstream; {@code answered} is the
   * target whose answer it is (null when none answered).
   */
  private Map<String, List<String>> upstreamHead(InboundRequest in, Admission.Proceed admitted, int calls,
      Plan plan, Target answered) {
    Map<String, List<String>> head = levee(in, admitted.tier());
    put(head, LeveeHeaders.ROUTE, plan.explainRoute());
    if (admitted.cacheMissed()) {
      put(head, LeveeHeaders.CACHE, "miss");
    }
    String changes = admitted.tier() == Tier.T0 ? null : plan.changesAnsweredBy(answered);
    if (changes != null) { // what was changed, not the tier's name for it
      put(head, LeveeHeaders.DEGRADED, disclosed(in, admitted.tier() + ": " + changes));
    }
    put(head, LeveeHeaders.ATTEMPTS, Integer.toString(calls));
    return head;
  }

  /** The headers of every answer to an admitted request. */
  private static Map<String, List<String>> levee(InboundRequest in, Tier tier) {
    Map<String, List<String>> head = new LinkedHashMap<>();
    put(head, LeveeHeaders.REQUEST_ID, in.id());
    put(head, LeveeHeaders.ANSWER_REQUEST_ID, in.id());
    put(head, LeveeHeaders.TIER, tier.name());
    return head;
  }

  /**
   * A relayed answer's head: the upstream's headers with Levee's over them, except the upstream's
   * own {@code request-id}, which stays (it names the answer at Anthropic; Levee's id is in {@code
   * x-levee-request-id}).
   */
  private static Map<String, List<String>> relayed(Reply reply, Map<String, List<String>> levee) {
    Map<String, List<String>> head = Headers.toClient(reply.headers());
    List<String> upstreamId = head.get(LeveeHeaders.ANSWER_REQUEST_ID);
    head.putAll(levee);
    if (upstreamId != null) {
      head.put(LeveeHeaders.ANSWER_REQUEST_ID, upstreamId);
    }
    return head;
  }

  /**
   * A stream's outcome word: {@code stream_complete}, {@code stream_failed}, {@code
   * stream_client_gone}, or {@code stream_send_timeout} for a stream whose client was there but
   * took no byte of a pending write for {@code server.send-timeout} (it stopped reading, and the
   * server cut it). Both of the last two are a client's doing, and are settled alike: the upstream
   * call closed at once, no failure of the target, nothing for the SLO (the relay's outcome is
   * {@code CLIENT_GONE} either way, and stage 6 reads that); only the word differs, so that an
   * operator can tell "clients too slow to read our streams" (capacity, or a client to look at) from
   * "users closed the tab" (normal).
   *
   * @param sendTimedOut whether the server's send timeout cut the client's connection
   */
  static String streamWord(ResilientStream.Outcome ended, boolean sendTimedOut) {
    return switch (ended) {
      case COMPLETE -> "stream_complete";
      case FAILED -> "stream_failed";
      case CLIENT_GONE -> sendTimedOut ? "stream_send_timeout" : "stream_client_gone";
    };
  }

  /**
   * The access log's {@code upstream_id=}: the upstream's {@code request-id} of a relayed answer,
   * which a relayed answer keeps in its own {@code request-id} header (what SDKs report as the
   * request's id), so that the id a client reports finds the line; empty when it sent none, or
   * one that is not a plain token (the log line stays one line of {@code key=value} words).
   */
  static String upstreamId(Reply reply) {
    return upstreamId(reply.requestId());
  }

  /** {@link #upstreamId(Reply)} of the upstream's {@code request-id} {@code id} (null: none). */
  static String upstreamId(String id) {
    return id == null || !plainToken(id) ? "" : " upstream_id=" + id;
  }

  /** Whether {@code id} is 1 to 128 of {@code A-Z a-z 0-9 _ . : -} (a loop: no matcher per answer). */
  private static boolean plainToken(String id) {
    int n = id.length();
    if (n == 0 || n > 128) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = id.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':'
          || c == '-')) {
        return false;
      }
    }
    return true;
  }

  /**
   * Why a stream failed, for its access line ({@code stream_failed stream_stalled: no content for
   * 5000 ms …}): what its {@code event: error} said, as one line of at most 200 characters (an
   * upstream's in-band error message is the upstream's text); empty when it did not fail.
   */
  static String streamFailure(Failure failure) {
    if (failure == null) {
      return "";
    }
    String why = CONTROL.matcher(failure.errorType() + ": " + failure.message()).replaceAll(" ");
    return " " + (why.length() > 200 ? why.substring(0, 199) + "…" : why);
  }

  /** {@code why}, or null when the feature's disclosure is {@code none}. */
  private static String disclosed(InboundRequest in, String why) {
    return in.config().disclosure() == Disclosure.NONE ? null : why;
  }

  /** Sets {@code name} (replacing any earlier value) to {@link #headerValue}; a null value sets nothing. */
  private static void put(Map<String, List<String>> head, String name, String value) {
    if (value != null) {
      head.remove(name);
      head.put(name, List.of(headerValue(value)));
    }
  }

  /**
   * A value Levee sets in a head it writes after the upstream was called, made safe to send: control
   * characters as spaces, at most {@value #MAX_HEADER_VALUE} characters (then cut, ending {@code
   * ...}). Ingress bounds the client's names already ({@link ClientNames}); this keeps a long chain's
   * {@code x-levee-reason} or an upstream's odd error type from failing a head whose answer is paid for.
   */
  static String headerValue(String value) {
    String cut = value.length() > MAX_HEADER_VALUE ? value.substring(0, MAX_HEADER_VALUE - 3) + "..." : value;
    for (int i = 0; i < cut.length(); i++) {
      char c = cut.charAt(i);
      if (c < ' ' || c == 0x7f) {
        return CONTROL.matcher(cut).replaceAll(" ");
      }
    }
    return cut;
  }

  private static void message(ClientResponse client, Map<String, List<String>> head, LocalAnswers.Message message) {
    if (message.json() != null) {
      client.send(200, head, "application/json", message.json());
      return;
    }
    try {
      SseWriter out = client.startStream(head);
      for (SseEvent event : message.events()) {
        out.write(event, false); // all at hand: they leave together, with the stream's end
      }
      client.endStream();
    } catch (IOException e) {
      client.abort(e);
    }
  }
}
