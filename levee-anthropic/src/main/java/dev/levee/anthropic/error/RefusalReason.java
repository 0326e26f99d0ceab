package dev.levee.anthropic.error;

import java.util.Locale;

/**
 * Why Levee refused a request, as a short fixed code ({@link #code()}, e.g. {@code body_not_json})
 * for the access log and metrics. The error's message says the same to the client in words, and may
 * quote what the client sent (a header's value, a body's bad token); the code never does, so an
 * operator can see why a client's requests are refused without a log that holds client input. A
 * closed set: a metric label with it is bounded. Carried by the {@link ApiError} each refusal site
 * builds ({@link ApiError#because}); never sent to the client. The codes and where each is given
 * are listed in {@code docs/gateway.md} ("Why a request was refused").
 */
public enum RefusalReason {

  // ---- at the server's door, before any handler ----
  /** {@code Transfer-Encoding} other than {@code chunked}: 501. */
  UNSUPPORTED_TRANSFER_ENCODING,
  /** {@code Transfer-Encoding} on an HTTP/1.0 request: 400. */
  TRANSFER_ENCODING_ON_HTTP10,
  /** The server is stopping: 503. */
  SHUTTING_DOWN,
  /** Over {@code server.max-concurrent-per-tenant}: 429. */
  TENANT_CONCURRENCY_LIMIT,
  /** Over {@code server.max-concurrent}: 529. */
  SERVER_CONCURRENCY_LIMIT,
  /** The request headers came too slowly: 408. */
  HEADERS_TOO_SLOW,
  /** The request body came too slowly: 408. */
  BODY_TOO_SLOW,
  /** The request body could not be read as framed (a malformed chunked body, a read that failed): 400. */
  BODY_UNREADABLE,
  /** An HTTP/2 client speaking prior knowledge: 426. */
  HTTP2_NOT_SUPPORTED,
  /** The request's URI is too long: 414. */
  URI_TOO_LONG,
  /** The request's headers are too large: 431. */
  HEADERS_TOO_LARGE,
  /** Any other request Jetty could not parse (a bad request line, an ambiguous URI, a bad header): its 4xx. */
  MALFORMED_HTTP,

  // ---- from the request's head: method, path, query, headers ----
  /** A query string that is not an RFC 3986 query: 400. */
  BAD_QUERY,
  /** A path Levee does not serve: 404. */
  UNKNOWN_PATH,
  /** A method the path does not take: 405. */
  METHOD_NOT_ALLOWED,
  /** An API path without {@code anthropic-version}: 400. */
  MISSING_ANTHROPIC_VERSION,
  /** {@code anthropic-version}, {@code x-api-key}, {@code authorization} or {@code idempotency-key} sent twice: 400. */
  REPEATED_HEADER,
  /** A {@code content-type} that is not {@code application/json}, or none: 400. */
  UNSUPPORTED_CONTENT_TYPE,
  /** Two {@code content-type} lines, or one naming two media types: 400. */
  REPEATED_CONTENT_TYPE,
  /** A {@code content-encoding} other than {@code identity}: 400. */
  COMPRESSED_BODY,

  // ---- the body (ingress) ----
  /** A body over {@code server.max-body}: 413. */
  BODY_TOO_LARGE,
  /** An empty body: 400. */
  BODY_EMPTY,
  /** A body that is not JSON (a syntax error, data after the object): 400. */
  BODY_NOT_JSON,
  /** A JSON body that is not an object: 400. */
  BODY_NOT_OBJECT,
  /** A body that is not UTF-8 (UTF-16, UTF-32, an ill-formed sequence): 400. */
  BODY_NOT_UTF8,
  /** A top-level field given twice: 400. */
  DUPLICATE_FIELD,
  /** No {@code model}: 400. */
  MISSING_MODEL,
  /**
   * A {@code model} that is not a non-blank string, or one that is no alias and no plausible model id
   * (1 to 256 visible ASCII characters, no brace): 400. A plausible id no upstream serves is not
   * refused: the upstream's own 404 is relayed ({@code rejected}).
   */
  BAD_MODEL,
  /** A {@code stream} that is not a boolean: 400. */
  BAD_STREAM,
  /** A {@code max_tokens} too large for an integer: 400. */
  BAD_MAX_TOKENS,
  /** An {@code x-levee-tenant} that is not a plain name: 400. */
  BAD_TENANT,
  /** An {@code x-levee-task}, {@code x-levee-latency-budget} or {@code x-levee-prefer} not allowed: 400. */
  BAD_ROUTE_HINT,

  // ---- idempotency keys ----
  /** An {@code idempotency-key} that is blank or over 255 characters: 400. */
  BAD_IDEMPOTENCY_KEY,
  /** An {@code idempotency-key} used before with another body: 422. */
  IDEMPOTENCY_KEY_REUSED,
  /** An {@code idempotency-key} whose first request is still in flight: 409. */
  IDEMPOTENCY_KEY_IN_FLIGHT,

  // ---- the rest ----
  /** Levee failed unexpectedly (a bug): 500. */
  INTERNAL_ERROR,
  /** A refusal with no code of its own (the jobs, batches and admin endpoints' errors among them). */
  OTHER;

  private final String code = name().toLowerCase(Locale.ROOT);

  /** The code: the name in snake case, e.g. {@code missing_anthropic_version}. */
  public String code() {
    return code;
  }
}
