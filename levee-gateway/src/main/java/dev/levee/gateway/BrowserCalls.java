package dev.levee.gateway;

import dev.levee.gateway.config.Cors;
import dev.levee.gateway.jobs.JobsHandler;
import java.util.Locale;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * CORS for the API's paths ({@code /v1/messages}, {@code /v1/messages/*}, {@code /v1/models},
 * {@code /v1/models/*}) and the jobs API ({@code /v1/levee/jobs/*}, which a page polls when its
 * message was queued: the same clients, with the same key), so that a browser client (the TypeScript SDK with {@code
 * dangerouslyAllowBrowser}) can call the gateway as it calls the Anthropic API: a preflight
 * ({@code OPTIONS} with {@code Origin} and {@code access-control-request-method}) gets 204 with
 * the {@code access-control-allow-*} headers and needs no key; an answer to a request with an
 * allowed {@code Origin} carries {@code access-control-allow-origin} ({@code *}, as the API
 * sends, or the origin itself when origins are listed) and {@code access-control-expose-headers:
 * *}. No credentials (cookies) are ever allowed: the key travels in a header. Which origins:
 * {@link Cors} ({@code server.cors}). Stateless, thread-safe.
 */
final class BrowserCalls {

  /** How long a browser may keep a preflight's answer, s (Chrome keeps at most 7200, Firefox 86400). */
  static final int MAX_AGE_SECONDS = 600;

  /** A list of header names as {@code access-control-request-headers} carries them (RFC 9110 tokens). */
  private static final Pattern HEADER_NAMES = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+(\\s*,\\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*");

  private final Cors cors;

  BrowserCalls(Cors cors) {
    this.cors = cors;
  }

  /** Whether browsers may call {@code path} (when {@code server.cors} allows their origin). */
  static boolean serves(String path) {
    return path.equals("/v1/messages") || path.startsWith("/v1/messages/") || path.equals("/v1/models")
        || path.startsWith("/v1/models/") || path.startsWith(JobsHandler.PREFIX);
  }

  /** The methods {@code path} answers, for {@code access-control-allow-methods}. */
  static String methods(String path) {
    if (path.equals("/v1/messages") || path.equals("/v1/messages/count_tokens")) {
      return "POST";
    }
    if (path.startsWith(JobsHandler.PREFIX)) {
      return "GET";
    }
    return path.startsWith("/v1/models") ? "GET, HEAD" : "GET, POST, DELETE"; // batches
  }

  /** Whether {@code request} is a CORS preflight this gateway answers (its origin allowed, on a path it serves). */
  boolean isPreflight(Request request, String path) {
    HttpFields headers = request.getHeaders();
    return request.getMethod().equals("OPTIONS") && serves(path) && headers.get("access-control-request-method") != null
        && cors.allows(headers.get("origin"));
  }

  /** Writes the head of a preflight's 204 onto {@code response}. */
  void preflight(Request request, Response response, String path) {
    HttpFields.Mutable head = response.getHeaders();
    allowOrigin(request, head);
    head.put("access-control-allow-methods", methods(path));
    String asked = request.getHeaders().get("access-control-request-headers");
    if (asked != null && HEADER_NAMES.matcher(asked.trim()).matches()) {
      head.put("access-control-allow-headers", asked.trim().toLowerCase(Locale.ROOT)); // SDKs add x-stainless-*
    }
    head.put("access-control-max-age", Integer.toString(MAX_AGE_SECONDS));
    head.add("vary", cors.anyOrigin() ? "access-control-request-method, access-control-request-headers"
        : "origin, access-control-request-method, access-control-request-headers");
    response.setStatus(204);
  }

  /** Adds {@code access-control-allow-origin} to the answer of a request from an allowed origin on a path browsers may call. */
  void actual(Request request, Response response, String path) {
    if (serves(path) && !cors.anyOrigin() && request.getHeaders().get("origin") != null) {
      response.getHeaders().add("vary", "origin"); // the answer depends on the origin, allowed or not (shared caches)
    }
    if (serves(path) && cors.allows(request.getHeaders().get("origin"))) {
      allowOrigin(request, response.getHeaders());
      response.getHeaders().put("access-control-expose-headers", "*"); // request-id, retry-after, x-levee-*
    }
  }

  private void allowOrigin(Request request, HttpFields.Mutable head) {
    if (cors.anyOrigin()) {
      head.put("access-control-allow-origin", "*");
    } else {
      head.put("access-control-allow-origin", request.getHeaders().get("origin"));
    }
  }
}
