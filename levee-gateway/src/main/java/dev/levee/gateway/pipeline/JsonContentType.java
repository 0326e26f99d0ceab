package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@code content-type} a Messages API request must have: {@code application/json}, in any
 * case, with any parameters ({@code application/json; charset=utf-8}). The Anthropic API takes
 * JSON bodies only and the official SDKs always send {@code application/json}; a request sent as
 * {@code text/plain}, as curl's {@code -d} default {@code application/x-www-form-urlencoded}, or
 * with no {@code content-type} is refused at the door with 400 {@code invalid_request_error}
 * saying what to send, and never forwarded. Only requests from clients are checked — by {@link
 * Ingress} and by Message Batch creation — a queued job run again was checked when it arrived.
 */
public final class JsonContentType {

  private JsonContentType() {}

  /** The refusal for {@code contentType} (the header's value, null when absent), or empty when it is JSON. */
  public static Optional<ApiError> check(String contentType) {
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
        "The request body must be JSON sent with content-type: application/json (the request had " + sent + ")."));
  }
}
