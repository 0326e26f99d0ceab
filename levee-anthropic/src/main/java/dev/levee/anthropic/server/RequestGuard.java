package dev.levee.anthropic.server;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.core.time.Spans;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The door of a Levee server, before its handler: two lanes, admission, the body, and shutdown.
 *
 * <ul>
 *   <li><b>Framing</b>: a transfer coding other than {@code chunked} is refused on every lane, 501
 *       and closed ({@link TransferCodings}).
 *   <li><b>Control lane</b> ({@code /health}, {@code /metrics}…): passed straight on, never
 *       limited, never waiting behind API traffic; while the server stops, the readiness path
 *       answers 503 {@code shutting_down}.
 *   <li><b>Admission</b>: at most {@link ServerLimits#maxConcurrent()} requests in flight and
 *       {@link ServerLimits#maxConcurrentPerTenant()} per tenant ({@link TenantKey}); beyond
 *       that an immediate 429 {@code rate_limit_error} (tenant) or 529 {@code overloaded_error}
 *       (server), both with {@code retry-after: 1} — never a wait.
 *   <li><b>Head</b>: a request that sent {@code expect: 100-continue} and that the handler answers
 *       from its headers alone ({@link HeadAnswers}: a wrong {@code content-type}, a path it does
 *       not serve…) is answered before its body is read, so it is never told {@code 100 Continue}
 *       only to be refused (RFC 9110 section 10.1.1).
 *   <li><b>Body</b>: held against {@link ServerLimits#maxBodyMemory()} as it arrives ({@link
 *       BodyMemory}: read on, dropped and answered 529 or 429 with {@code retry-after} when it does
 *       not fit), read in full at {@link
 *       ServerLimits#minBodyRate()} or answered 408 {@code timeout_error} and closed ({@link
 *       BodyReader}); the handler reads it from memory. A body
 *       that cannot be read as framed is answered 400 {@code invalid_request_error} and closed; a
 *       client that goes away mid-body (its connection closed or reset) gets no answer and is told
 *       to {@link Refusals#clientGone}, not counted as refused.
 *   <li><b>Shutdown</b> ({@link #drain}): new requests get 503; those in flight get {@link
 *       ServerLimits#shutdownGrace()} to finish, then are ended by the server ({@link
 *       GuardedExchange}).
 * </ul>
 */
public final class RequestGuard extends Handler.Wrapper {

  private static final Logger LOG = LoggerFactory.getLogger(RequestGuard.class);
  private static final long RETRY_AFTER_SECONDS = 1;
  private static final ApiError SHUTTING_DOWN = new ApiError(503, "overloaded_error", "gateway shutting down")
      .because(RefusalReason.SHUTTING_DOWN);
  private static final byte[] NOT_READY = "{\"status\":\"shutting_down\",\"ready\":false}".getBytes(StandardCharsets.UTF_8);

  /**
   * Which paths travel on the control lane, which one reports readiness, and how a refusal is named
   * and recorded.
   *
   * @param control the control lane's paths
   * @param readinessPath the path answered 503 {@code shutting_down} while the server stops; null for none
   * @param naming the request id of a response the server answers itself (429, 529, 503, 408,
   *     400 before any handler saw the request; the 503, or a stream's {@code event: error}, of a
   *     request still in flight at shutdown; the 408 of headers too slow, {@link HeaderDeadline}), for the error body's {@code
   *     request_id}: the id already in the response's headers, else a fresh one put in them where
   *     the server's answers carry it; null: no id
   * @param refusals hears each request refused before any handler saw it, once its answer is written,
   *     and each whose client went away while its body was read
   * @param head asked, on the API lane, before the door reads a body the client waits to send
   *     ({@code expect: 100-continue}), whether the handler answers the request from its head alone
   *     ({@link HeadAnswers#NONE}: never)
   */
  public record Lanes(Predicate<String> control, String readinessPath, Function<HttpFields.Mutable, String> naming,
      Refusals refusals, HeadAnswers head) {
    /** No control lane: every path is admitted and limited. */
    public static final Lanes NONE = new Lanes(path -> false, null);

    /** Lanes whose refusals carry no request id and are not recorded. */
    public Lanes(Predicate<String> control, String readinessPath) {
      this(control, readinessPath, null, Refusals.NONE);
    }

    /** Lanes whose handler answers nothing from the head alone. */
    public Lanes(Predicate<String> control, String readinessPath, Function<HttpFields.Mutable, String> naming,
        Refusals refusals) {
      this(control, readinessPath, naming, refusals, HeadAnswers.NONE);
    }

    /** These lanes, their refusals named by {@code naming}. */
    public Lanes namedBy(Function<HttpFields.Mutable, String> naming) {
      return new Lanes(control, readinessPath, naming, refusals, head);
    }

    /** These lanes, their refusals heard by {@code refusals} (the access log and metrics, say). */
    public Lanes heardBy(Refusals refusals) {
      return new Lanes(control, readinessPath, naming, refusals, head);
    }

    /** These lanes, {@code head} asked before the door reads a body. */
    public Lanes answeringFromHead(HeadAnswers head) {
      return new Lanes(control, readinessPath, naming, refusals, head);
    }

    /** The id of an answer the server gives itself, put in {@code headers} by {@link #naming}; null when none. */
    String name(HttpFields.Mutable headers) {
      return naming == null ? null : naming.apply(headers);
    }
  }

  /**
   * Hears the requests the server refuses before any handler sees them: over a concurrency limit
   * (529, 429), during shutdown (503), a transfer coding it does not understand (501), a body too slow (408) or unreadable (400), headers too slow
   * (408, {@link HeaderDeadline}), a request Jetty could not parse ({@link ApiErrorHandler}).
   * Called after the answer is written (headers too slow: on the sweeping thread, as it is
   * written); must not block. It also hears, apart ({@link #clientGone}), the requests whose
   * client went away while the server read their body: those are no refusal, and get no answer.
   */
  @FunctionalInterface
  public interface Refusals {
    /** Hears nothing. */
    Refusals NONE = (method, path, beganNanos, requestId, error) -> { };

    /**
     * Hears a request whose client went away while the server read its body — the connection
     * closed or reset with fewer bytes than {@code content-length}, or before a chunked body's last
     * chunk — once its exchange has ended with no answer (nobody is there to read one). Not a
     * refusal: the client left (a gateway logs it as {@code 499 client_gone}); a body that is
     * malformed (400), too slow (408) or too large (413) is refused as before. Must not block.
     * Default: hears nothing.
     *
     * @param method the request's method
     * @param path the request's path
     * @param beganNanos when the request's first byte arrived ({@link System#nanoTime()}'s clock)
     * @param requestId the id the request was named by (sent to no one), or null when the lanes name none
     */
    default void clientGone(String method, String path, long beganNanos, String requestId) { }

    /**
     * @param method the request's method, or null when it is not known (headers too slow, a request
     *     line Jetty could not parse)
     * @param path the request's path, or null when it is not known (headers too slow)
     * @param beganNanos when the request's first byte arrived ({@link System#nanoTime()}'s clock)
     * @param requestId the id the answer carries, or null when the lanes name none
     * @param error the answer sent; its {@link ApiError#reason} says why as a code (its message may
     *     quote what the client sent: not for logs)
     */
    void refused(String method, String path, long beganNanos, String requestId, ApiError error);
  }

  /**
   * The handler's answers decided by a request's head alone — its method, path, query and headers —
   * given before the door reads the body. Jetty tells a client that sent {@code expect:
   * 100-continue} to go on ({@code 100 Continue}) when its body is first read; the door reads it
   * before the handler runs, so a refusal the handler would decide from the headers (a {@code
   * content-type} that is not JSON, a missing {@code anthropic-version}, a path not served) came
   * only after the client had uploaded its whole body. RFC 9110 section 10.1.1: a server that
   * will refuse a request from its headers should send the final status without {@code 100
   * Continue}. The body such an answer leaves unread is never taken for the next request: Jetty
   * reads what has arrived of it and closes the connection ({@code connection: close}) when the
   * rest has not (a client waiting for {@code 100 Continue} sends none). Asked once per request,
   * on the API lane, after admission, only for a body the door would read (one declared over
   * {@link ServerLimits#maxBody()} is left to the handler unread anyway) and only when the client
   * sent {@code expect: 100-continue}: a client that did not is sending its body already, and one
   * still uploading a body larger than the sockets' buffers would have its connection closed under
   * it, its 400 lost to a broken pipe or a reset (RFC 9112 section 9.6); its body is read first
   * and the handler refuses it, on a connection kept ({@code RefusedOnHeadersMidUploadRegressionTest}).
   * A handler that answers from the head should check again itself, for requests that did not come
   * through a door asking.
   */
  @FunctionalInterface
  public interface HeadAnswers {
    /** Answers nothing from the head: the door reads every body first. */
    HeadAnswers NONE = (request, response, callback) -> false;

    /**
     * Answers {@code request} if its head alone decides the answer, without reading its body.
     *
     * @return true when it answered (or is answering) and will complete {@code callback}; false to
     *     go on: the door reads the body and hands the request to the handler
     * @throws Exception as {@link Handler#handle} may; the door then lets Jetty fail the exchange
     */
    boolean answered(Request request, Response response, Callback callback) throws Exception;
  }

  private final ServerLimits limits;
  private final Lanes lanes;
  private final ConcurrencyLimit admission;
  private final Set<GuardedExchange> inFlight = ConcurrentHashMap.newKeySet();
  private volatile boolean draining;

  public RequestGuard(ServerLimits limits, Lanes lanes, Handler handler) {
    super(handler);
    this.limits = limits;
    this.lanes = lanes;
    this.admission = new ConcurrencyLimit(limits.maxConcurrent(), limits.maxConcurrentPerTenant(),
        limits.maxBodyMemory());
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String path = Request.getPathInContext(request);
    Optional<ApiError> coding = TransferCodings.check(request.getHeaders(),
        request.getConnectionMetaData().getHttpVersion());
    if (coding.isPresent()) { // on every lane: the body's framing is not what it seems
      response.getHeaders().put("x-should-retry", "false"); // a retry would send the same framing
      refuse(request, response, callback, coding.get(), true);
      return true;
    }
    if (lanes.control().test(path)) {
      if (draining && path.equals(lanes.readinessPath())) {
        ServerIo.json(response, callback, 503, NOT_READY);
        return true;
      }
      return super.handle(request, response, callback);
    }
    if (draining) {
      refuse(request, response, callback, SHUTTING_DOWN, true);
      return true;
    }
    ConcurrencyLimit.Decision decision = admission.tryAcquire(TenantKey.of(request));
    if (!(decision instanceof ConcurrencyLimit.Permit permit)) {
      refuse(request, response, callback, decision == ConcurrencyLimit.Refused.TENANT
          ? new ApiError(429, "rate_limit_error", "Too many concurrent requests for this API key (limit "
              + admission.maxPerTenant() + "); retry after the ones in flight finish.")
              .because(RefusalReason.TENANT_CONCURRENCY_LIMIT)
          : new ApiError(529, "overloaded_error", "The server is at its limit of " + admission.maxTotal()
              + " concurrent requests; retry shortly.").because(RefusalReason.SERVER_CONCURRENCY_LIMIT), false);
      return true;
    }
    request.setAttribute(BodyMemory.ATTRIBUTE, permit); // what its body holds, until the permit closes
    GuardedExchange exchange = null;
    try {
      byte[] body = null;
      if (hasBody(request) && request.getLength() <= limits.maxBody()) { // a larger declared body: the handler refuses it
        if (expectsContinue(request) && lanes.head().answered(request, response, callback)) { // no 100 Continue for a refusal
          permit.close();
          return true;
        }
        BodyReader.Result read = BodyReader.read(request, limits);
        switch (read) {
          case BodyReader.Body b -> body = b.bytes();
          case BodyReader.ClientGone gone -> { // nobody is there to read an answer: none is written
            permit.close();
            left(request, response, callback);
            return true;
          }
          case BodyReader.TooSlow slow -> {
            LOG.info("{} {}: request body too slow ({} bytes received), answered 408 and closed",
                request.getMethod(), path, slow.received());
            refuse(request, response, callback, BodyReader.refusal(read, limits), true);
            permit.close();
            return true;
          }
          case BodyReader.Broken broken -> {
            refuse(request, response, callback, BodyReader.refusal(read, limits), true);
            permit.close();
            return true;
          }
          case BodyReader.NoRoom none -> { // read to its end and dropped: the connection is kept
            refuse(request, response, callback, none.error(), !none.whole());
            permit.close();
            return true;
          }
        }
      }
      exchange = new GuardedExchange(request, body, response, callback, ended -> {
        inFlight.remove(ended);
        permit.close();
      });
      inFlight.add(exchange);
      if (!super.handle(exchange.request, exchange.response, exchange.handlerCallback)) {
        inFlight.remove(exchange);
        permit.close();
        return false;
      }
      return true;
    } catch (Exception | Error e) { // Jetty fails the exchange itself
      if (exchange != null) {
        inFlight.remove(exchange);
      }
      permit.close();
      throw e;
    }
  }

  /** Requests in flight on the API lane now. */
  public int inFlight() {
    return admission.inFlight();
  }

  /** Bytes of request bodies held now, over every request in flight ({@link ServerLimits#maxBodyMemory()}). */
  public long bodyBytesHeld() {
    return admission.bytesHeld();
  }

  /** Whether {@link #drain} has begun. */
  public boolean draining() {
    return draining;
  }

  /**
   * Starts refusing new API requests (503) and reporting not-ready, waits up to {@link
   * ServerLimits#shutdownGrace()} for the requests in flight, then ends the rest: streams with an
   * {@code event: error} ({@code overloaded_error}, "gateway shutting down"), other answers with
   * 503 and {@code retry-after}. Logged as a shutdown, one line.
   *
   * @return how many requests were ended by the server; 0 when a drain had begun already
   */
  public int drain() throws InterruptedException {
    synchronized (this) {
      if (draining) {
        return 0; // drained already (a shutdown hook and a try-with-resources both close the gateway)
      }
      draining = true;
    }
    long deadline = System.nanoTime() + limits.shutdownGrace().toNanos();
    while (!inFlight.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(Math.max(1, Math.min(20, (deadline - System.nanoTime()) / 1_000_000)));
    }
    int streams = 0;
    int others = 0;
    for (GuardedExchange exchange : inFlight) {
      boolean stream = exchange.streaming();
      String id = exchange.response.isCommitted() // its head is sent: its id is read from a copy, never put in it
          ? lanes.name(HttpFields.build(exchange.response.getHeaders())) : idOf(exchange.response);
      if (exchange.endForShutdown(SHUTTING_DOWN, id, RETRY_AFTER_SECONDS)) {
        if (stream) {
          streams++;
        } else {
          others++;
        }
      }
    }
    if (streams + others > 0) {
      LOG.info("shutdown: {} requests still in flight after the {} grace were ended by the server "
          + "({} streams ended with event: error, {} answered 503)", streams + others, Spans.of(limits.shutdownGrace()), streams, others);
    } else {
      LOG.info("shutdown: every request in flight finished within the {} grace", Spans.of(limits.shutdownGrace()));
    }
    return streams + others;
  }

  private static boolean hasBody(Request request) {
    return request.getLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
  }

  /** Whether the client waits for {@code 100 Continue} before it sends its body (RFC 9110 section 10.1.1). */
  private static boolean expectsContinue(Request request) {
    return request.getHeaders().contains(HttpHeader.EXPECT, HttpHeaderValue.CONTINUE.asString());
  }

  /** The request id {@code response} answers under, or null when these lanes name none. */
  private String idOf(Response response) {
    return lanes.name(response.getHeaders());
  }

  /**
   * Ends the exchange of a client that went away mid-upload: no answer, the connection closed
   * ({@link ClientGoneException}, which the error handler neither answers nor counts), and the
   * lanes' {@link Refusals#clientGone} told, under the id the request was named by.
   */
  private void left(Request request, Response response, Callback callback) {
    String id = idOf(response);
    callback.failed(new ClientGoneException());
    lanes.refusals().clientGone(request.getMethod(), request.getHttpURI().getPath(), request.getBeginNanoTime(), id);
  }

  /**
   * Answers {@code error} in the API's shape; a refusal for load (429, 503, 529) says when to retry.
   *
   * @param close whether the connection closes after the answer (the client misbehaved, or the server stops)
   */
  private void refuse(Request request, Response response, Callback callback, ApiError error, boolean close) {
    ServerIo.retryAfterIfLoad(response, error);
    if (close) {
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
    }
    response.setStatus(error.status());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    String id = idOf(response);
    response.write(true, ByteBuffer.wrap(error.toBytes(id)), callback);
    lanes.refusals().refused(request.getMethod(), request.getHttpURI().getPath(), request.getBeginNanoTime(), id,
        error);
  }
}
