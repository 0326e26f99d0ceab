package dev.levee.anthropic.server;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import java.util.Locale;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Answers the errors Jetty raises before a handler runs (an ambiguous or malformed URI, a URI or
 * headers too long, an unparsable request, an HTTP/2 preface) in the Messages API's error shape
 * instead of Jetty's HTML page or empty body, whatever the method, so that every client of Levee's
 * servers can parse every answer. The status is Jetty's; the type follows {@link
 * ApiError#typeFor(int)}. A request line too long (414) or headers too large (431) are told the
 * limit they broke: Jetty counts the request line and the headers together against one limit
 * ({@link org.eclipse.jetty.server.HttpConfiguration#getRequestHeaderSize()}, 8 KiB by default). Like the guard's own refusals, each is named by the server's lanes
 * ({@code request_id}) and told to their {@link RequestGuard.Refusals} (the gateway's access log
 * and metrics).
 */
final class ApiErrorHandler extends ErrorHandler {

  /** The 426 Jetty answers to an HTTP/2 client speaking prior knowledge ({@code PRI * HTTP/2.0}). */
  static final String HTTP1_ONLY = "This server speaks HTTP/1.1 only: HTTP/2 (h2c, prior knowledge) is not "
      + "supported; send the request over HTTP/1.1.";

  /** A handler's failure, in words for the client: what failed is in the server's log, under the request id. */
  static final String INTERNAL = "The server failed to answer this request (an internal error); nothing of it "
      + "is described here. Its log names it by this request_id.";

  /** The path Jetty gives a request it could not parse (no path of the client's): logged as {@code -}. */
  private static final String BAD_MESSAGE = "/badMessage";

  private final RequestGuard.Lanes lanes;
  private final String headLimit;

  /**
   * @param headBytes the most bytes the request line and headers may take together (the
   *     connector's {@code requestHeaderSize})
   */
  ApiErrorHandler(RequestGuard.Lanes lanes, int headBytes) {
    this.lanes = lanes;
    this.headLimit = "the request line and headers must fit in " + size(headBytes) + ".";
  }

  /** {@code 8 KiB (8,192 bytes)}, or {@code 8,000 bytes} for a size that is no whole number of KiB. */
  static String size(int bytes) {
    String exact = String.format(Locale.ROOT, "%,d bytes", bytes);
    return bytes % 1024 == 0 ? (bytes >> 10) + " KiB (" + exact + ")" : exact;
  }

  /** Why Jetty refused a request with {@code status}, as a code. */
  static RefusalReason reason(int status) {
    return switch (status) {
      case HttpStatus.UPGRADE_REQUIRED_426 -> RefusalReason.HTTP2_NOT_SUPPORTED;
      case HttpStatus.URI_TOO_LONG_414 -> RefusalReason.URI_TOO_LONG;
      case HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431 -> RefusalReason.HEADERS_TOO_LARGE;
      default -> status >= 500 ? RefusalReason.INTERNAL_ERROR : RefusalReason.MALFORMED_HTTP;
    };
  }

  /** Every method gets the error body (Jetty's default: GET, POST and HEAD only; others got none, not even a PRI's 426). */
  @Override
  public boolean errorPageForMethod(String method) {
    return true;
  }

  /**
   * Answers what Jetty could not hand to a handler, or a handler's failure before its head was
   * sent, with an Anthropic-shaped error, counted as refused. A handler that ended the exchange
   * because its client went away ({@link ClientGoneException}) gets no answer and no count: the
   * connection is closed, and the handler has logged the request (499). Nor does a request on a
   * connection the header deadline answered 408 ({@link HeaderDeadline#answered}): Jetty fails it as
   * the connection ends, and the 408 was its answer, counted once.
   */
  @Override
  protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
      Callback callback) {
    if (ClientGoneException.in(cause) || HeaderDeadline.answered(request)) {
      callback.failed(cause != null ? cause : new EofException("answered already"));
      return;
    }
    if (code == HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505) { // a line with no HTTP version (HTTP/0.9, or garbage)
      code = HttpStatus.BAD_REQUEST_400; // the client's fault: a 5xx would read as a server error, and SDKs retry those
    }
    String text = switch (code) {
      case HttpStatus.UPGRADE_REQUIRED_426 -> HTTP1_ONLY;
      case HttpStatus.URI_TOO_LONG_414 -> "The request line is too long: " + headLimit;
      case HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431 -> "The request headers are too large: " + headLimit;
      default -> code >= 500 && cause != null ? INTERNAL // Jetty's message is the cause's toString: Java exception text
          : message == null || message.isBlank() ? HttpStatus.getMessage(code) : message;
    };
    ApiError error = new ApiError(code, ApiError.typeFor(code), text).because(reason(code));
    String id = lanes.name(response.getHeaders());
    ServerIo.json(response, callback, code, error.toBytes(id));
    String path = request.getHttpURI().getPath();
    boolean parsed = !BAD_MESSAGE.equals(path); // Jetty names an unparsable request BAD /badMessage
    lanes.refusals().refused(parsed ? request.getMethod() : null, parsed ? path : null, request.getBeginNanoTime(), id,
        error);
  }
}
