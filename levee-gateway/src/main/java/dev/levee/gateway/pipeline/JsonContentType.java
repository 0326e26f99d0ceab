package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;
import dev.levee.anthropic.error.RefusalReason;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;

/**
 * The {@code content-type} a Messages API request must have: {@code application/json}, in any
 * case, with any parameters ({@code application/json; charset=utf-8}). The Anthropic API takes
 * JSON bodies only and the official SDKs always send {@code application/json}; a request sent as
 * {@code text/plain}, as curl's {@code -d} default {@code application/x-www-form-urlencoded}, or
 * with no {@code content-type} is refused at the door with 400 {@code invalid_request_error}
 * saying what to send, and never forwarded. Only requests from clients are checked — by {@link
 * Ingress} and by Message Batch creation — a queued job run again was checked when it arrived.
 *
 * <p>A request must say one media type: two {@code content-type} lines, or one that joins types
 * with a comma ({@code application/json, text/plain}), are refused with the same 400 instead of one
 * being picked — {@code content-type} is a singleton field (RFC 9110 section 8.3), and a proxy on
 * the way may pick the other. A comma inside a quoted parameter value is not a join. Thread-safe
 * (stateless).
 */
public final class JsonContentType {

  private JsonContentType() {}

  /**
   * The refusal for a request's {@code headers}: empty when they hold exactly one {@code
   * content-type} line, naming one media type, {@code application/json}.
   *
   * @param headers the request's headers as received
   * @return the 400 {@code invalid_request_error} to answer, or empty
   */
  public static Optional<ApiError> check(HttpFields headers) {
    List<String> values = headers.getValuesList(HttpHeader.CONTENT_TYPE);
    if (values.size() > 1) {
      return Optional.of(ApiError.invalidRequest("The request has " + values.size() + " content-type headers; send"
          + " exactly one, content-type: application/json (RFC 9110 section 8.3).")
          .because(RefusalReason.REPEATED_CONTENT_TYPE));
    }
    return check(values.isEmpty() ? null : values.getFirst());
  }

  /**
   * The refusal for {@code contentType} (one header line's value, null when absent), or empty when it
   * is JSON; a value that joins media types with a comma is refused.
   */
  public static Optional<ApiError> check(String contentType) {
    if (contentType != null && joinsTypes(contentType)) {
      return Optional.of(ApiError.invalidRequest("The request's content-type: " + ClientText.shown(contentType)
          + " names more than one media type; send exactly one, content-type: application/json (RFC 9110 section 8.3).")
          .because(RefusalReason.REPEATED_CONTENT_TYPE));
    }
    if (contentType != null) {
      int semicolon = contentType.indexOf(';');
      String mediaType = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip()
          .toLowerCase(Locale.ROOT);
      if (mediaType.equals("application/json")) {
        return Optional.empty();
      }
    }
    String sent = contentType == null ? "no content-type header"
        : "content-type: " + ClientText.shown(contentType);
    return Optional.of(ApiError.invalidRequest(
        "The request body must be JSON sent with content-type: application/json (the request had " + sent + ").")
        .because(RefusalReason.UNSUPPORTED_CONTENT_TYPE));
  }

  /** Whether {@code value} holds a comma outside a quoted string (RFC 9110 section 5.6.4). */
  private static boolean joinsTypes(String value) {
    boolean quoted = false;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (quoted && c == '\\') {
        i++; // a quoted-pair: the next character is taken as it is
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        return true;
      }
    }
    return false;
  }
}
