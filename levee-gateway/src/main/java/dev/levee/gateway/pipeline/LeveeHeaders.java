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
  /** Why the request failed, one line per target, when it did. */
  public static final String REASON = "x-levee-reason";
  /** Tells clients whether retrying could help; Levee owns retries, so a final failure says false. */
  public static final String SHOULD_RETRY = "x-should-retry";

  private LeveeHeaders() {}
}
