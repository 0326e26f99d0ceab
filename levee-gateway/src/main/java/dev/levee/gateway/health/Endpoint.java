package dev.levee.gateway.health;

/**
 * The family of paths a client request was sent to: the {@code endpoint} label of {@code
 * levee_requests_total} and {@code levee_request_duration_seconds}. A closed set, so the label's
 * cardinality is bounded whatever the client sends: a job or batch id never reaches a label.
 */
public enum Endpoint {
  /** {@code /v1/messages}. */
  MESSAGES("messages"),
  /** {@code /v1/messages/count_tokens}. */
  COUNT_TOKENS("count_tokens"),
  /** {@code /v1/messages/batches} and everything under it. */
  BATCHES("batches"),
  /** {@code /v1/levee/jobs/{id}}. */
  JOBS("jobs"),
  /**
   * A queued request's try, run by the gateway itself: an outage-queue job or a Message Batches
   * request. No client waits on it, so it is kept apart from {@link #MESSAGES}, whose counts feed
   * the SLO alerts ({@code docs/alerts.yaml}); never {@link #of} a path.
   */
  QUEUED("queued"),
  /** Any other path, or none known ({@code -}: a request refused before its path was read). */
  OTHER("other");

  private final String label;

  Endpoint(String label) {
    this.label = label;
  }

  /** The label value. */
  public String label() {
    return label;
  }

  /** Whether its requests are Messages API calls, which have an answer source ({@code levee_answers_total}). */
  public boolean answers() {
    return this == MESSAGES || this == COUNT_TOKENS || this == OTHER;
  }

  /** The endpoint of a request path (its query string already removed); {@link #OTHER} for null. */
  public static Endpoint of(String path) {
    if (path == null) {
      return OTHER;
    }
    return switch (path) {
      case "/v1/messages" -> MESSAGES;
      case "/v1/messages/count_tokens" -> COUNT_TOKENS;
      default -> path.equals("/v1/messages/batches") || path.startsWith("/v1/messages/batches/") ? BATCHES
          : path.startsWith("/v1/levee/jobs/") ? JOBS : OTHER;
    };
  }
}
