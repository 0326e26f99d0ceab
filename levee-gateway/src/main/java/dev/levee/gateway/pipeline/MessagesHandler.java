package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ErrorClassifier;
import dev.levee.anthropic.upstream.UpstreamClient;
import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.anthropic.error.RetryAfter;
import dev.levee.anthropic.server.DisconnectWatch;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Headers;
import dev.levee.core.chain.Attempt;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.Routes;
import java.time.Duration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code POST /v1/messages} (and {@code /v1/messages/count_tokens}), top to bottom:
 *
 * <ol>
 *   <li><b>ingress</b> — read and validate the body ({@link Ingress});
 *   <li><b>plan</b> — the targets for the requested alias ({@link Routes}) and one deadline;
 *   <li><b>execute</b> — the fallback chain runs one attempt per call ({@link UpstreamCalls});
 *   <li><b>relay</b> — the JSON answer ({@link JsonRelay}) or the stream ({@link StreamRelay});
 *   <li><b>respond</b> — {@code x-levee-*} headers, or one Anthropic-shaped error; then the access log.
 * </ol>
 *
 * <p>A client that goes away cancels everything in flight; that is no upstream failure.
 */
public final class MessagesHandler {

  private final Ingress ingress;
  private final Routes routes;
  private final FallbackChain chain;
  private final UpstreamCalls calls;
  private final Duration deadline;
  private final Ticker ticker;

  /** Wires the stages from the gateway's shared parts. */
  public static MessagesHandler create(GatewayConfig config, Routes routes, FallbackChain chain, UpstreamClient client,
      ErrorClassifier classifier, Watchdog watchdog, Ticker ticker) {
    return new MessagesHandler(
        new Ingress(config.server().maxBody(), ticker),
        routes,
        chain,
        new UpstreamCalls(config.upstreams(), client, classifier, watchdog, ticker, config.policy().stream()),
        config.policy().deadline(),
        ticker);
  }

  private MessagesHandler(Ingress ingress, Routes routes, FallbackChain chain, UpstreamCalls calls, Duration deadline,
      Ticker ticker) {
    this.ingress = ingress;
    this.routes = routes;
    this.chain = chain;
    this.calls = calls;
    this.deadline = deadline;
    this.ticker = ticker;
  }

  public void handle(Request request, Response response, Callback callback) {
    ClientResponse client = new ClientResponse(response, callback);
    long start = ticker.nanos();
    InboundRequest in;
    try {
      in = ingress.read(request);
    } catch (Ingress.Refused refused) {
      client.error(refused.error, null);
      AccessLog.log(null, "-", refused.error.status(), null, 0, false, millisSince(start), refused.error.type());
      return;
    }
    client.header(LeveeHeaders.REQUEST_ID, in.id());
    Routes.Route route = routes.resolve(in.body().model());
    Deadline requestDeadline = Deadline.after(deadline, ticker);
    Cancellation cancellation = new Cancellation();
    DisconnectWatch watch = DisconnectWatch.start(request, cancellation::cancel);
    client.beforeEnd(watch::close);
    request.addFailureListener(failure -> cancellation.cancel());

    ChainResult<UpstreamReply> result = execute(in, route, requestDeadline, cancellation);
    respond(in, route, result, client, cancellation, start);
  }

  private ChainResult<UpstreamReply> execute(InboundRequest in, Routes.Route route, Deadline requestDeadline,
      Cancellation cancellation) {
    Attempt<UpstreamReply> attempt = in.body().stream() ? calls.stream(in, cancellation) : calls.json(in, cancellation);
    Thread self = Thread.currentThread();
    AutoCloseable wake = cancellation.register(self::interrupt); // ends a backoff wait at once
    try {
      return chain.execute(route.targets(), requestDeadline, false, attempt);
    } finally {
      try {
        wake.close();
      } catch (Exception ignored) {
        // unregistering cannot fail
      }
      Thread.interrupted(); // an interrupt meant for the chain must not leak into the relay
    }
  }

  private void respond(InboundRequest in, Routes.Route route, ChainResult<UpstreamReply> result, ClientResponse client,
      Cancellation cancellation, long start) {
    int calls = result.calls();
    client.header(LeveeHeaders.ATTEMPTS, Integer.toString(calls));
    switch (result) {
      case ChainResult.Answered<UpstreamReply> answered -> {
        client.header(LeveeHeaders.MODEL, answered.target().id())
            .header(LeveeHeaders.FALLBACK, Boolean.toString(answered.fallback()));
        String outcome;
        if (answered.response().stream() != null) {
          outcome = "stream_" + StreamRelay.relay(answered, client, cancellation).name().toLowerCase();
        } else {
          JsonRelay.relay(answered, client);
          outcome = "ok";
        }
        AccessLog.log(in, route.alias(), client.status(), answered.target().id(), calls, answered.fallback(),
            millisSince(start), outcome);
      }
      case ChainResult.Rejected<UpstreamReply> rejected -> {
        UpstreamReply reply = rejected.response();
        client.header(LeveeHeaders.MODEL, rejected.target().id()).header(LeveeHeaders.SHOULD_RETRY, "false");
        if (reply != null && reply.body() != null) {
          client.headers(Headers.toClient(reply.headers())).header(LeveeHeaders.SHOULD_RETRY, "false");
          String type = reply.headers().getOrDefault("content-type", java.util.List.of("application/json")).get(0);
          client.send(reply.status(), type, reply.body());
        } else {
          var f = rejected.failure();
          client.error(new ApiError(ApiError.statusFor(f.errorType()), f.errorType(), f.message()), null);
        }
        AccessLog.log(in, route.alias(), client.status(), rejected.target().id(), calls, false, millisSince(start),
            "rejected " + rejected.failure().errorType());
      }
      case ChainResult.Exhausted<UpstreamReply> exhausted -> {
        FailureResponse failure = FailureResponse.of(exhausted);
        client.header(LeveeHeaders.SHOULD_RETRY, "false").header(LeveeHeaders.REASON, failure.reason());
        failure.retryAfter().ifPresent(wait -> client.header("retry-after", RetryAfter.seconds(wait)));
        client.error(failure.error(), null);
        AccessLog.log(in, route.alias(), client.status(), null, calls, false, millisSince(start),
            "exhausted " + failure.reason());
      }
      case ChainResult.Cancelled<UpstreamReply> cancelled -> {
        client.abort(new java.util.concurrent.CancellationException("client went away"));
        AccessLog.log(in, route.alias(), 499, null, calls, false, millisSince(start), "client_gone");
      }
    }
  }

  private long millisSince(long start) {
    return (ticker.nanos() - start) / 1_000_000;
  }
}
