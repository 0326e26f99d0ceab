package dev.levee.gateway.pipeline;

/** The response headers in which Levee explains itself (DESIGN.md promise 8). */
public final class LeveeHeaders {

  /** The target that answered, {@code upstream/model}. */
  public static final String MODEL = "x-levee-model";
  /** Upstream calls made for this request (retries and fallbacks included). */
  public static final String ATTEMPTS = "x-levee-attempts";
  /** {@code true} when the answer came from a target other than the chain's first. */
  public static final String FALLBACK = "x-levee-fallback";
  /** Levee's id of the request, as in its access log. */
  public static final String REQUEST_ID = "x-levee-request-id";
  /**
   * The header the official SDKs read as an answer's request id ({@code err.requestID},
   * {@code _request_id}): the upstream's own on a relayed answer, Levee's id (as in {@link
   * #REQUEST_ID}) on what Levee answers itself — its errors, cached, static and queued answers.
   */
  public static final String ANSWER_REQUEST_ID = "request-id";
  /**
   * How each target the request met ended, when the answer is not a plain pass-through: every
   * target failed (the error, or a cached answer standing in: then also {@link #CACHE} {@code
   * stale}), or the answer came after retries, a fallback or a hedge ({@code "emu/a: 529
   * overloaded_error (3 calls); emu/b: answered"}); and on {@code GET /v1/models}, why the
   * upstream's models are missing from the list. Absent on a first call's answer.
   */
  public static final String REASON = "x-levee-reason";
  /** The feature's degradation tier when the request was admitted: T0 full, T1 reduced, T2 cached, T3 static. */
  public static final String TIER = "x-levee-tier";
  /** How the answer cache was used: {@code hit}, {@code miss}, {@code stale} or {@code semantic}. */
  public static final String CACHE = "x-levee-cache";
  /** Why the answer is not the full one, when it is not (unless the feature's disclosure is {@code none}). */
  public static final String DEGRADED = "x-levee-degraded";
  /**
   * The scoring router's candidates and scores for this request, best first ({@code
   * claude-sonnet-4-6=88.4;claude-opus-4-6=70.8}); only on answers to an alias with {@code route:
   * score} that went upstream at T0.
   */
  public static final String ROUTE = "x-levee-route";
  /**
   * Tells the official SDKs whether their own retry loop should send the request again; Levee owns
   * retries (DESIGN.md promise 2), so a final failure says {@code false}. The SDKs read it before
   * anything else and never wait a {@code retry-after} when it is {@code false}, so the {@code
   * retry-after} a final failure may carry too (when a circuit admits a trial, when a stated wait
   * ends) is for whoever decides later whether to ask again: the two agree.
   */
  public static final String SHOULD_RETRY = "x-should-retry";
  /** The job a request queued on an outage became ({@code GET /v1/levee/jobs/{id}}). */
  public static final String JOB = "x-levee-job";

  private LeveeHeaders() {}
}
