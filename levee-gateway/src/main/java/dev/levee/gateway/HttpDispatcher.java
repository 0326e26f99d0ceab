package dev.levee.gateway;

import dev.levee.anthropic.Json;
import dev.levee.anthropic.Utf8;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.anthropic.server.RequestGuard;
import dev.levee.anthropic.server.SendTimeoutException;
import dev.levee.anthropic.server.ServerIo;
import dev.levee.gateway.health.HealthReport;
import dev.levee.gateway.health.Metrics;
import dev.levee.gateway.health.Readiness;
import dev.levee.gateway.pipeline.LeveeErrors;
import dev.levee.gateway.pipeline.LeveeHeaders;
import dev.levee.gateway.pipeline.MessagesHandler;
import dev.levee.gateway.pipeline.RequestIds;
import dev.levee.gateway.batches.BatchesHandler;
import dev.levee.gateway.jobs.JobsHandler;
import dev.levee.gateway.work.QueuedWork;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;

/**
 * Dispatches each HTTP request to its handler by path and method ({@code /v1/messages}, {@code
 * /health}, {@code /health/ready}, {@code /health/live}, {@code /metrics}, {@code /admin/*}, {@code /v1/models}); runs on virtual threads
 * (blocking is fine). The API's paths are refused without {@code anthropic-version}, or with a key or version header twice, here, before
 * any stage ({@link ApiHeaders}). Every answer the request's head alone decides is given before its
 * body is read, so a client that sent {@code expect: 100-continue} is refused without {@code 100
 * Continue} ({@link #answeredFromHead}). Not the model router of DESIGN.md, which chooses a target.
 */
final class HttpDispatcher extends Handler.Abstract {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(HttpDispatcher.class);
  /** The request attribute saying the door asked {@link #answeredFromHead} ({@link #headAnswers}). */
  private static final String HEAD_READ = HttpDispatcher.class.getName() + ".headRead";
  /** The paths of the control lane that {@link #dispatch} answers itself. */
  private static final Set<String> CONTROL_PATHS = Set.of("/health", "/health/live", "/health/ready", "/metrics");

  private final RequestIds ids;
  private final MessagesHandler messages;
  private final HealthReport health;
  private final AdminHandler admin;
  private final Metrics metrics;
  private final PassThrough passThrough;
  private final QueuedWork work;
  private final Readiness readiness;
  private final BrowserCalls browsers;

  HttpDispatcher(RequestIds ids, MessagesHandler messages, HealthReport health, AdminHandler admin, Metrics metrics,
      PassThrough passThrough, QueuedWork work, Readiness readiness, BrowserCalls browsers) {
    super(Invocable.InvocationType.BLOCKING);
    this.browsers = browsers;
    this.readiness = readiness;
    this.ids = ids;
    this.work = work;
    this.metrics = metrics;
    this.passThrough = passThrough;
    this.messages = messages;
    this.health = health;
    this.admin = admin;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    try {
      return dispatch(request, response, callback);
    } catch (RuntimeException e) {
      return failed(request, response, callback, e);
    }
  }

  /** A bug must still answer in the API's shape, never Jetty's HTML page. */
  private boolean failed(Request request, Response response, Callback callback, RuntimeException e) {
    LOG.error("unexpected failure on {} {}", request.getMethod(), Request.getPathInContext(request), e);
    if (!response.isCommitted()) {
      return error(request, response, callback, LeveeErrors.UNEXPECTED);
    }
    callback.failed(e);
    return true;
  }

  /**
   * Answers a request whose head alone — method, path, query, headers — decides its answer, before
   * anything reads its body: a query that is not a URI's, a browser's preflight, a method a path
   * does not take (405), a path Levee does not serve (404), an API path without {@code
   * anthropic-version} or with a key twice ({@link ApiHeaders}), a Messages request or a batch
   * whose {@code content-type} is not JSON or whose body is compressed. Names the request ({@code
   * x-levee-request-id}) on every path it serves, {@code /health*} and {@code /metrics} included,
   * and adds the CORS headers of an allowed origin. The server's door asks it before it reads a body ({@link
   * RequestGuard.HeadAnswers}), so none of these refusals follows a {@code 100 Continue} and an
   * upload; {@link #dispatch} asks it first for every other request. Runs once per request.
   *
   * @return true when the request was answered
   */
  private boolean answeredFromHead(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    if (!validQuery(request.getHttpURI().getQuery())) { // Jetty takes it; the upstream URI would not
      return error(request, response, callback, ApiError.invalidRequest("The query string is not a valid URI query "
          + "(RFC 3986 section 3.4): percent-encode characters such as | ^ { } \" \\ and any non-ASCII one, and write % only "
          + "before two hex digits; the bytes so encoded must be UTF-8.").because(RefusalReason.BAD_QUERY));
    }
    if (browsers.isPreflight(request, path)) { // a browser asks first; no key needed (docs/gateway.md, "Browsers")
      browsers.preflight(request, response, path);
      callback.succeeded(); // not recorded: counted under its path, it would dilute the endpoint's SLO counts
      return true;
    }
    browsers.actual(request, response, path);
    boolean messagesPath = path.equals("/v1/messages") || path.equals("/v1/messages/count_tokens");
    boolean modelsPath = path.equals("/v1/models") || path.startsWith("/v1/models/");
    if (messagesPath && !method.equals("POST")) {
      return notAllowed(request, response, callback, method, path, "POST");
    }
    if (modelsPath && !method.equals("GET") && !method.equals("HEAD")) {
      return notAllowed(request, response, callback, method, path, "GET, HEAD");
    }
    boolean api = messagesPath || modelsPath || BatchesHandler.serves(path);
    boolean served = api || CONTROL_PATHS.contains(path) || path.startsWith(JobsHandler.PREFIX)
        || path.startsWith("/admin/");
    if (served) { // named here, so idempotency-key errors and replays carry the id the pipeline then uses
      response.getHeaders().put(LeveeHeaders.REQUEST_ID, ids.next()); // findable in the logs, errors included
    }
    if (api) { // before idempotency, cache, tiers, the queue and the batch store: none may answer in the API's place
      ApiError refused = ApiHeaders.check(request.getHeaders());
      if (refused != null) {
        return error(request, response, callback, refused);
      }
    }
    Optional<ApiError> refused = messagesPath ? MessagesHandler.refusalOnHead(request)
        : BatchesHandler.refusalOnHead(request);
    if (refused.isPresent()) {
      return error(request, response, callback, refused.get());
    }
    if (!served) {
      return error(request, response, callback, LeveeErrors.unknownPath(method, path));
    }
    return false;
  }

  private boolean dispatch(Request request, Response response, Callback callback) {
    // unless the door asked already (vary: origin is added, not put: once only); a request the door
    // did not ask (most: it asks only a client waiting for 100 Continue) carries no attribute
    if (request.getAttribute(HEAD_READ) == null && answeredFromHead(request, response, callback)) {
      return true;
    }
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    switch (path) {
      case "/v1/messages", "/v1/messages/count_tokens" ->
          work.idempotency().handle(request, response, callback, messages::handle, messages::answeredByIdempotencyKey);
      case "/health" -> {
        if (!method.equals("GET") && !method.equals("HEAD")) {
          return notAllowed(request, response, callback, method, path, "GET, HEAD");
        }
        HealthReport.Report report = health.report();
        if (readiness.state() == Readiness.State.DRAINING) { // stopping, still serving (server.drain-delay)
          report = report.draining();
        }
        ServerIo.json(response, callback, report.verdict().httpStatus(), Json.bytes(report.body()));
      }
      case "/health/live" -> {
        if (!method.equals("GET") && !method.equals("HEAD")) {
          return notAllowed(request, response, callback, method, path, "GET, HEAD");
        }
        ServerIo.json(response, callback, 200, "{\"status\":\"live\"}".getBytes(StandardCharsets.UTF_8));
      }
      case "/health/ready" -> {
        if (!method.equals("GET") && !method.equals("HEAD")) {
          return notAllowed(request, response, callback, method, path, "GET, HEAD");
        }
        Readiness.State state = readiness.state();
        ServerIo.json(response, callback, state == Readiness.State.READY ? 200 : 503,
            ("{\"status\":\"" + state.word() + "\"}").getBytes(StandardCharsets.UTF_8));
      }
      case "/metrics" -> {
        if (!method.equals("GET") && !method.equals("HEAD")) {
          return notAllowed(request, response, callback, method, path, "GET, HEAD");
        }
        ServerIo.send(response, callback, 200, "text/plain; version=0.0.4; charset=utf-8",
            metrics.scrape().getBytes(StandardCharsets.UTF_8));
      }
      default -> { // a path answeredFromHead found served
        if (BatchesHandler.serves(path)) {
          PassThrough.idWhereTheSdksLook(response); // Levee answers the batches API itself: its id is the answer's
          work.batches().handle(request, response, recorded(request, response, callback));
        } else if (path.startsWith(JobsHandler.PREFIX)) {
          work.jobsHandler().handle(request, response, recorded(request, response, callback));
        } else if (path.startsWith("/admin/")) {
          admin.handle(path, request, response, recorded(request, response, callback));
        } else { // /v1/models, GET or HEAD (GET's status and headers, no body)
          passThrough.handle(request, response, recorded(request, response, callback));
        }
      }
    }
    return true;
  }

  /**
   * The door's {@link RequestGuard.HeadAnswers}: {@link #answeredFromHead}, a failure answered as
   * {@link #handle} answers one.
   */
  RequestGuard.HeadAnswers headAnswers() {
    return (request, response, callback) -> {
      request.setAttribute(HEAD_READ, Boolean.TRUE); // dispatch asks no more
      try {
        return answeredFromHead(request, response, callback);
      } catch (RuntimeException e) {
        return failed(request, response, callback, e);
      }
    };
  }

  /**
   * {@code callback}, writing the exchange's access record and metrics once it completes (as
   * {@link MessagesHandler#answeredOutsideThePipeline}): outcome {@code ok} below 400, {@code
   * refused} for a 4xx and for a 5xx the handler sent as a refusal (a 529 for {@code
   * server.max-body-memory}, with its reason, as the door counts it), {@code error} for any other 5xx,
   * each followed by the status's error type ({@code
   * refused not_found_error}, as a refusal on the Messages path says it), {@code client_gone} (499)
   * when the answer could not be sent, {@code send_timeout} (499) when it could not because the
   * client took no byte of it for {@code server.send-timeout} (it stopped reading: the server cut
   * it). A refusal names its reason, the code of the error the handler
   * sent ({@link LeveeErrors#refusalOf}: never its message, which may quote the client's input); an
   * idempotency key's answer given again is {@code replayed}, and the upstream's own 4xx relayed
   * ({@code /v1/models/{id}} of a model it does not know) {@code rejected}, as on the Messages path:
   * neither is Levee's refusal. An answer relayed as the upstream gave it also names the upstream's
   * {@code request-id} ({@code ok upstream_id=req_…}, {@code rejected not_found_error
   * upstream_id=req_…}), as the Messages path's relayed answers do. A handler that throws instead is recorded by {@link #error}.
   */
  private Callback recorded(Request request, Response response, Callback callback) {
    return new Callback() {
      @Override
      public void succeeded() {
        int status = response.getStatus();
        String type = ApiError.typeFor(status);
        RefusalReason sent = LeveeErrors.refusalOf(request); // null: the handler sent no error of Levee's
        RefusalReason refusal = null;
        String outcome;
        if ("true".equals(response.getHeaders().get("idempotent-replayed"))) { // IdempotentExchange's replay
          outcome = "replayed";
        } else if (status < 400) {
          outcome = "ok";
        } else if (status >= 500 && (sent == null || sent == RefusalReason.INTERNAL_ERROR)) {
          outcome = "error " + type; // a 5xx with a refusal's reason (529 for memory) is a refusal, as at the door
        } else if (sent == null && PassThrough.relayed(request)) {
          outcome = "rejected " + type;
        } else {
          outcome = "refused " + type;
          refusal = sent == null ? RefusalReason.OTHER : sent;
        }
        messages.answeredOutsideThePipeline(request, response, status, outcome, refusal, PassThrough.upstreamId(request));
        callback.succeeded();
      }

      @Override
      public void failed(Throwable x) {
        messages.answeredOutsideThePipeline(request, response, 499,
            SendTimeoutException.endedBySendTimeout(request) ? "send_timeout" : "client_gone", null,
            PassThrough.upstreamId(request)); // what it was, as on the Messages path: client_gone upstream_id=req_…
        callback.failed(x);
      }

      @Override
      public InvocationType getInvocationType() {
        return callback.getInvocationType();
      }
    };
  }

  /**
   * Whether {@code query} (raw, or null for none) is an RFC 3986 query: printable ASCII only (Jetty
   * reads a raw non-ASCII byte as U+FFFD) that parses as the query of a {@link URI}, as every
   * upstream call's does, and whose percent-encoded bytes are UTF-8 (Jetty's parameter parser throws
   * on {@code %ff}: a 500 on the paths that read parameters).
   */
  private static boolean validQuery(String query) {
    if (query == null) {
      return true;
    }
    for (int i = 0; i < query.length(); i++) {
      char c = query.charAt(i);
      if (c <= ' ' || c >= 0x7f) {
        return false;
      }
    }
    try {
      new URI("?" + query);
    } catch (URISyntaxException e) {
      return false;
    }
    return utf8Escapes(query);
  }

  /** Whether the bytes {@code query} stands for, its escapes decoded, are UTF-8; every {@code %} starts an escape. */
  private static boolean utf8Escapes(String query) {
    byte[] bytes = new byte[query.length()];
    int n = 0;
    for (int i = 0; i < query.length(); i++) {
      char c = query.charAt(i);
      if (c == '%') {
        bytes[n++] = (byte) HexFormat.fromHexDigits(query, i + 1, i + 3);
        i += 2;
      } else {
        bytes[n++] = (byte) c;
      }
    }
    return Utf8.firstMalformed(bytes, 0, n) < 0;
  }

  /** 405 with the {@code Allow} header RFC 9110 §15.5.6 requires. */
  private boolean notAllowed(Request request, Response response, Callback callback, String method, String path,
      String allowed) {
    response.getHeaders().put("allow", allowed);
    String why = method.equals("OPTIONS") && request.getHeaders().get("access-control-request-method") != null
        ? ": a browser's CORS preflight from an origin server.cors does not allow (docs/gateway.md, \"Browsers (CORS)\")"
        : "";
    return error(request, response, callback, new ApiError(405, "invalid_request_error",
        ClientText.shown(method) + " is not allowed on " + ClientText.shown(path) + why)
        .because(RefusalReason.METHOD_NOT_ALLOWED));
  }

  /**
   * Levee's own error, with a request id in the body ({@code request_id}) and in {@code
   * x-levee-request-id}: the exchange's id when it has one already, else a fresh one. It is
   * written to the access log and counted like a refusal at the door.
   */
  private boolean error(Request request, Response response, Callback callback, ApiError error) {
    if (response.getHeaders().get(LeveeHeaders.REQUEST_ID) == null) {
      response.getHeaders().put(LeveeHeaders.REQUEST_ID, ids.next());
    }
    LeveeErrors.send(response, callback, error);
    messages.refusedAtTheDoor(request, response.getHeaders().get(LeveeHeaders.REQUEST_ID), error); // access log, metrics
    return true;
  }
}
