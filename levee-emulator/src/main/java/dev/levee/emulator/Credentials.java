package dev.levee.emulator;

import dev.levee.anthropic.error.ApiError;
import org.eclipse.jetty.http.HttpFields;

/**
 * The API's credential check, without real keys: an {@code x-api-key} or {@code Authorization:
 * Bearer} header must be present (else 401 "x-api-key header is required"), and a key starting
 * with {@code invalid} is refused (401 "invalid x-api-key"). The key itself is never kept.
 */
final class Credentials {

  private Credentials() {}

  /** The 401 for these headers, or null when they carry an acceptable key. */
  static ApiError check(HttpFields headers) {
    String key = headers.get("x-api-key");
    if (key == null) {
      String authorization = headers.get("authorization");
      if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
        key = authorization.substring(7).trim();
      }
    }
    if (key == null || key.isEmpty()) {
      return new ApiError(401, "authentication_error", "x-api-key header is required");
    }
    if (key.startsWith("invalid")) {
      return new ApiError(401, "authentication_error", "invalid x-api-key");
    }
    return null;
  }
}
