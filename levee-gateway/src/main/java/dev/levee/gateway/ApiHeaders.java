package dev.levee.gateway;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import java.util.List;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;

/**
 * The request headers checked at the door of every path that speaks the
 * Anthropic API ({@code /v1/messages}, {@code /v1/messages/count_tokens}, {@code
 * /v1/messages/batches*}, {@code /v1/models*}) before idempotency keys, the cache, tiers, the
 * outage queue or batches see the request: a request the API would refuse never gets a replayed,
 * cached or queued answer instead of that refusal.
 *
 * <p>Anthropic's versioning page says every API request must send the header ("When making API
 * requests, you must send an {@code anthropic-version} request header"); without it the API
 * answers 400 {@code invalid_request_error} "anthropic-version: header is required", and so does
 * the gateway. Only presence is checked here: the value passes to the upstream untouched
 * (DESIGN.md, promise 1), which judges it. The documented versions are {@code 2023-01-01} (the
 * first), {@code 2023-06-01} and later dated ones; a list kept here would refuse the next version
 * the day Anthropic ships it. Levee's own jobs API ({@code /v1/levee/jobs/*}), health, metrics and
 * admin paths do not need the header.
 *
 * <p>{@code anthropic-version}, {@code x-api-key} and {@code authorization} must each come at most
 * once: two lines of one are refused 400 {@code invalid_request_error} naming the header (never its
 * values), as two {@code content-type} lines are. Levee reads the first — its tenant is the hash of
 * the first key — while an upstream or a proxy on the way may take the other, so a request could be
 * counted, cached and limited as one tenant while it is billed to another. Stateless, thread-safe.
 */
final class ApiHeaders {

  /** The header's name. */
  static final String NAME = "anthropic-version";

  /** The API's refusal of a request without the header: 400 {@code invalid_request_error}. */
  static final ApiError MISSING = ApiError.invalidRequest("anthropic-version: header is required")
      .because(RefusalReason.MISSING_ANTHROPIC_VERSION);

  /**
   * The headers a request may send at most once, lower case: two keys or versions are two
   * tenants or two APIs, and of two {@code idempotency-key}s the first was taken as the request's
   * and the second ignored (a replay of a request the client may not have meant).
   */
  private static final List<String> SINGLETONS = List.of(NAME, "x-api-key", "authorization", "idempotency-key");

  private ApiHeaders() {}

  /**
   * The refusal for {@code headers}, or null when they carry a non-blank {@code anthropic-version}
   * (any value: the upstream judges it) and none of {@code anthropic-version}, {@code x-api-key},
   * {@code authorization}, {@code idempotency-key} twice.
   */
  static ApiError check(HttpFields headers) {
    int[] lines = new int[SINGLETONS.size()];
    for (HttpField field : headers) { // one pass over the request's fields
      for (int i = 0; i < lines.length; i++) {
        if (field.is(SINGLETONS.get(i))) {
          lines[i]++;
        }
      }
    }
    for (int i = 0; i < lines.length; i++) {
      if (lines[i] > 1) {
        return ApiError.invalidRequest("The request has " + lines[i] + " " + SINGLETONS.get(i)
            + " headers; send exactly one.").because(RefusalReason.REPEATED_HEADER);
      }
    }
    String version = headers.get(NAME);
    return version == null || version.isBlank() ? MISSING : null;
  }
}
