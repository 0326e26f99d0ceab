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
  /** The tenant's bodies in flight hold its half of {@code server.max-body-memory}: 429. */
  TENANT_BODY_MEMORY_LIMIT,
  /** The bodies in flight hold all of {@code server.max-body-memory}: 529. */
  SERVER_BODY_MEMORY_LIMIT,
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
  /**
   * A body over {@code server.max-body}, or a Message Batch over the API's limits (256 MB, 100,000
   * requests): 413.
   */
  BODY_TOO_LARGE,
  /** An empty body: 400. */
  BODY_EMPTY,
  /** A body that is not JSON (a syntax error, data after the object): 400. */
  BODY_NOT_JSON,
  /** A JSON body that is not an object: 400. */
  BODY_NOT_OBJECT,
  /** A body that is not UTF-8 (UTF-16, UTF-32, an ill-formed sequence): 400. */
  BODY_NOT_UTF8,
  /** A field given twice: at the top of a Messages request, anywhere in a batch: 400. */
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
  /**
   * An {@code x-levee-task}, {@code x-levee-latency-budget} or {@code x-levee-prefer} not allowed (or
   * their parameters of {@code /admin/route}): 400.
   */
  BAD_ROUTE_HINT,

  // ---- idempotency keys ----
  /** An {@code idempotency-key} that is blank or over 255 characters: 400. */
  BAD_IDEMPOTENCY_KEY,
  /** An {@code idempotency-key} used before with another body: 422. */
  IDEMPOTENCY_KEY_REUSED,
  /** An {@code idempotency-key} whose first request is still in flight: 409. */
  IDEMPOTENCY_KEY_IN_FLIGHT,

  // ---- the jobs, batches, admin and models endpoints ----
  /** A job, batch, alias or feature named in the path or query that is not there (or is another tenant's): 404. */
  NOT_FOUND,
  /**
   * A query parameter of a value the endpoint does not take ({@code limit}, {@code state}, {@code
   * /admin/route}'s {@code alias}), or an ambiguous one: empty, given twice, both {@code after_id} and
   * {@code before_id} (the batches and models lists, {@code PageQuery}). {@code /admin/jobs} also
   * refuses a parameter it does not take; the Anthropic-compatible lists ignore one, as the API does
   * (the SDKs add {@code beta=true}): 400.
   */
  BAD_PARAMETER,
  /**
   * A body field those endpoints do not take, one missing, or one of a value they do not take (a
   * batch's {@code requests}, {@code custom_id}, {@code params}; an admin tier force's {@code tier},
   * {@code for}): 400.
   */
  BAD_FIELD,
  /** A batch's {@code x-levee-priority} that is not a whole number from 0 to 9: 400. */
  BAD_PRIORITY,
  /** A batch without an API key for a model whose every target forwards the client's own: 401. */
  MISSING_API_KEY,
  /** A batch whose requests would have to keep the client's key while {@code queue.secret} is unset: 403. */
  QUEUE_SECRET_UNSET,
  /** The results or the delete of a batch still processing: 400. */
  BATCH_IN_PROGRESS,
  /** An operator's cancel of a job that ended otherwise (succeeded, failed, expired): 409. */
  JOB_ENDED,
  /** An admin path while {@code admin.token} is unset: 404. */
  ADMIN_DISABLED,
  /** An admin path without the admin token, or with another: 401. */
  BAD_ADMIN_TOKEN,

  // ---- the rest ----
  /** Levee failed unexpectedly (a bug): 500. */
  INTERNAL_ERROR,
  /** A refusal whose site gave no code of its own ({@link ApiError#ApiError(int, String, String)}). */
  OTHER;

  private final String code = name().toLowerCase(Locale.ROOT);

  /** The code: the name in snake case, e.g. {@code missing_anthropic_version}. */
  public String code() {
    return code;
  }
}
