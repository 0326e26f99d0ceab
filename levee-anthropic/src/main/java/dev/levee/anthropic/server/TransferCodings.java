package dev.levee.anthropic.server;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;
import dev.levee.anthropic.error.RefusalReason;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;

/**
 * The transfer codings a request may be sent with: {@code chunked} only. Jetty frames a request
 * whose last coding is {@code chunked} ({@code Transfer-Encoding: gzip, chunked}) by its chunks and
 * hands the body on as if no other coding were applied, so a gzipped body would be read as JSON
 * and forwarded with its coding dropped. RFC 9112 section 6.1: a server that receives a transfer
 * coding it does not understand should answer 501 (Not Implemented); it is answered so, typed
 * {@code invalid_request_error} (the client's doing) with {@code x-should-retry: false} (the SDKs
 * retry a 5xx otherwise), and the connection is closed. An HTTP/1.0 request with any {@code
 * Transfer-Encoding} (which Jetty frames as chunked) has faulty framing by the same section: 400,
 * closed. A request whose last coding is not {@code chunked}, or that has both {@code
 * Transfer-Encoding} and {@code Content-Length}, Jetty refuses itself with 400 and closes (RFC 9112
 * section 6.3), answered in the API's shape by {@link ApiErrorHandler}. Empty list elements ({@code
 * chunked, }, {@code , chunked}, an empty {@code Transfer-Encoding} line beside a {@code chunked}
 * one) are ignored, as RFC 9110 section 5.6.1 asks of a recipient, and Jetty frames such a request
 * by its chunks. Thread-safe (stateless).
 */
final class TransferCodings {

  /** The status RFC 9112 section 6.1 names for a transfer coding the server does not understand. */
  static final int NOT_IMPLEMENTED = 501;

  private TransferCodings() {}

  /**
   * @param headers the request's headers
   * @param version the request's HTTP version
   * @return the 501 to answer when {@code Transfer-Encoding} names a coding other than {@code
   *     chunked} (empty list elements are not codings), the 400 when an HTTP/1.0 request has one at all; empty otherwise
   */
  static Optional<ApiError> check(HttpFields headers, HttpVersion version) {
    if (!headers.contains(HttpHeader.TRANSFER_ENCODING)) {
      return Optional.empty(); // nearly every request: no list, no allocation
    }
    if (version == HttpVersion.HTTP_1_0) { // HTTP/1.0 has no transfer codings: a proxy on the way framed it otherwise
      return Optional.of(ApiError.invalidRequest("Transfer-Encoding is not defined for an HTTP/1.0 request; its framing"
          + " is faulty (RFC 9112 section 6.1): send HTTP/1.1, or frame the body by Content-Length.")
          .because(RefusalReason.TRANSFER_ENCODING_ON_HTTP10));
    }
    List<String> values = headers.getValuesList(HttpHeader.TRANSFER_ENCODING);
    for (String value : values) {
      for (String coding : value.split(",")) {
        String name = coding.strip().toLowerCase(Locale.ROOT);
        if (!name.isEmpty() && !name.equals("chunked")) { // empty elements do not count (RFC 9110 section 5.6.1)
          return Optional.of(new ApiError(NOT_IMPLEMENTED, "invalid_request_error", "Transfer-Encoding: "
              + ClientText.shown(String.join(", ", values)) + " is not supported: send the request body as it is,"
              + " framed by Content-Length or Transfer-Encoding: chunked alone (RFC 9112 section 6.1).")
              .because(RefusalReason.UNSUPPORTED_TRANSFER_ENCODING));
        }
      }
    }
    return Optional.empty();
  }
}
