package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ErrorClassifier;
import dev.levee.anthropic.error.RetryAfter;
import dev.levee.anthropic.server.DisconnectWatch;
import dev.levee.anthropic.stream.ResilientStream;
import dev.levee.anthropic.stream.StreamEngine;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Endpoint;
import dev.levee.anthropic.upstream.Headers;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.anthropic.upstream.UpstreamClient;
import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.chain.Target;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Failure;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.Routes;
import dev.levee.gateway.config.GatewayConfig;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.function.Function;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code POST /v1/messages} (and {@code /v1/messages/count_tokens}), top to bottom:
 *
 * <ol>
 *   <li><b>ingress</b> — read and validate the body ({@link Ingress});
 *   <li><b>plan</b> — the targets for the requested alias ({@link Routes}) and one deadline;
 *   <li><b>execute</b> — the fallback chain runs one attempt per call: a JSON call ({@link
 *       UpstreamCalls}) or a stream up to its commit point ({@link StreamEngine});
 *   <li><b>relay</b> — the JSON answer ({@link JsonRelay}) or the resilient stream ({@link StreamRelay});
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
  private final StreamEngine streams;
  private final Duration deadline;
  private final Ticker ticker;

  private MessagesHandler(Ingress ingress, Routes routes, FallbackChain chain, UpstreamCalls calls,
      StreamEngine streams, Duration deadline, Ticker ticker) {
    this.ingress = ingress;
    this.routes = routes;
    this.chain = chain;
    this.calls = calls;
    this.streams = streams;
    this.deadline = deadline;
    this.ticker = ticker;
  }

  /** Wires the stages from the gateway's shared parts. */
  public static MessagesHandler create(GatewayConfig config, Routes routes, FallbackChain chain, StreamEngine streams,
      Function<Target, Endpoint> endpoints, UpstreamClient client, ErrorClassifier classifier, Watchdog watchdog,
      Ticker ticker) {
    return new MessagesHandler(
        new Ingress(config.server().maxBody(), ticker),
        routes,
        chain,
        new UpstreamCalls(endpoints, client, classifier, watchdog, ticker),
        streams,
        config.policy().deadline(),
        ticker);
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

    ChainResult<Reply> result = execute(in, route, requestDeadline, cancellation);
    respond(in, route, result, client, cancellation, start);
  }

  private ChainResult<Reply> execute(InboundRequest in, Routes.Route route, Deadline requestDeadline,
      Cancellation cancellation) {
    Thread self = Thread.currentThread();
    AutoCloseable wake = cancellation.register(self::interrupt); // ends a backoff wait at once
    try {
      return in.body().stream()
          ? streams.open(in.request(), route.targets(), requestDeadline, cancellation)
          : chain.execute(route.targets(), requestDeadline, false, calls.json(in.request(), cancellation));
    } finally {
      try {
        wake.close();
      } catch (Exception ignored) {
        // unregistering cannot fail
      }
      Thread.interrupted(); // an interrupt meant for the chain must not leak into the relay
    }
  }

  private void respond(InboundRequest in, Routes.Route route, ChainResult<Reply> result, ClientResponse client,
      Cancellation cancellation, long start) {
    int calls = result.calls();
    client.header(LeveeHeaders.ATTEMPTS, Integer.toString(calls));
    switch (result) {
      case ChainResult.Answered<Reply> answered -> {
        client.header(LeveeHeaders.MODEL, answered.target().id())
            .header(LeveeHeaders.FALLBACK, Boolean.toString(answered.fallback()));
        String outcome;
        if (answered.response().stream() != null) {
          ResilientStream stream = streams.resilient(answered, in.request(), route.targets(), route.resume(), cancellation);
          ResilientStream.Outcome ended = StreamRelay.relay(answered.response(), stream, client);
          outcome = "stream_" + ended.name().toLowerCase() + (stream.resumes() > 0 ? " resumes=" + stream.resumes()
              + " last=" + stream.target().id() : "");
        } else {
          JsonRelay.relay(answered, client);
          outcome = "ok";
        }
        AccessLog.log(in, route.alias(), client.status(), answered.target().id(), calls, answered.fallback(),
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
          client.error(new ApiError(ApiError.statusFor(f.errorType()), f.errorType(), f.message()), null);
        }
        AccessLog.log(in, route.alias(), client.status(), rejected.target().id(), calls, false, millisSince(start),
            "rejected " + rejected.failure().errorType());
      }
      case ChainResult.Exhausted<Reply> exhausted -> {
        FailureResponse failure = FailureResponse.of(exhausted);
        client.header(LeveeHeaders.SHOULD_RETRY, "false").header(LeveeHeaders.REASON, failure.reason());
        failure.retryAfter().ifPresent(wait -> client.header("retry-after", RetryAfter.seconds(wait)));
        client.error(failure.error(), null);
        AccessLog.log(in, route.alias(), client.status(), null, calls, false, millisSince(start),
            "exhausted " + failure.reason());
      }
      case ChainResult.Cancelled<Reply> cancelled -> {
        client.abort(new CancellationException("client went away"));
        AccessLog.log(in, route.alias(), 499, null, calls, false, millisSince(start), "client_gone");
      }
    }
  }

  private long millisSince(long start) {
    return (ticker.nanos() - start) / 1_000_000;
  }
}
