package dev.levee.anthropic.server;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import java.util.Optional;
import org.eclipse.jetty.server.Request;

/**
 * The bytes of body a request in flight holds, against {@link ServerLimits#maxBodyMemory()}: the
 * server's door counts each body as it arrives (the array it is read into: a client holds only
 * what it has sent), and a handler that makes more of it (a batch parsed into its requests) holds
 * more here first. Released when the request ends. Requests that did not come through a door that
 * counts (an embedder's handler, a unit test) hold nothing and are never refused.
 */
public final class BodyMemory {

  /** The request attribute under which the door leaves a request's permit. */
  static final String ATTRIBUTE = BodyMemory.class.getName();

  private BodyMemory() {}

  /**
   * Makes {@code request} hold {@code bytes} of body in all (nothing changes when it holds as many
   * already).
   *
   * @param bytes the bytes the request's body takes in memory now, at most
   * @return empty when held; else the answer to give: 529 {@code overloaded_error} when the
   *     server's bodies fill {@code max-body-memory}, 429 {@code rate_limit_error} when the tenant's
   *     fill its half, 413 {@code request_too_large} when {@code bytes} exceeds a tenant's half
   */
  public static Optional<ApiError> hold(Request request, long bytes) {
    if (!(request.getAttribute(ATTRIBUTE) instanceof ConcurrencyLimit.Permit permit)) {
      return Optional.empty();
    }
    ConcurrencyLimit.Refused refused = permit.hold(bytes);
    return refused == null ? Optional.empty() : Optional.of(refusal(refused, permit.limit(), bytes));
  }

  /**
   * Whether {@code bytes} could never be held for {@code request}, being more than a tenant's half:
   * the 413 to answer before any of it is read (a batch declared too large for its parse). Holds
   * nothing: a body is held as it arrives.
   */
  public static Optional<ApiError> neverFits(Request request, long bytes) {
    if (request.getAttribute(ATTRIBUTE) instanceof ConcurrencyLimit.Permit permit
        && bytes > permit.limit().maxBytesPerTenant()) {
      return Optional.of(refusal(ConcurrencyLimit.Refused.BYTES_NEVER, permit.limit(), bytes));
    }
    return Optional.empty();
  }

  /** Makes {@code request} hold no body bytes (it dropped its body): they go back at once, not when it ends. */
  public static void letGo(Request request) {
    if (request.getAttribute(ATTRIBUTE) instanceof ConcurrencyLimit.Permit permit) {
      permit.letGo();
    }
  }

  static ApiError refusal(ConcurrencyLimit.Refused refused, ConcurrencyLimit limit, long bytes) {
    return switch (refused) {
      case BYTES_TOTAL -> new ApiError(529, "overloaded_error", "The server holds its limit of "
          + mib(limit.maxBytes()) + " of request bodies in flight (server.max-body-memory); retry shortly.")
          .because(RefusalReason.SERVER_BODY_MEMORY_LIMIT);
      case BYTES_TENANT -> new ApiError(429, "rate_limit_error", "Request bodies in flight for this API key hold "
          + "its share of the server's memory for bodies (" + mib(limit.maxBytesPerTenant())
          + ", half of server.max-body-memory); retry after the ones in flight finish.")
          .because(RefusalReason.TENANT_BODY_MEMORY_LIMIT);
      case BYTES_NEVER -> ApiError.requestTooLarge("This request needs " + bytes + " bytes of memory for its body, more "
          + "than the server holds for one API key (" + limit.maxBytesPerTenant()
          + " bytes, half of server.max-body-memory); send a smaller one (split a batch), or have the server's "
          + "max-body-memory raised.").because(RefusalReason.BODY_TOO_LARGE);
      case TENANT, TOTAL -> throw new IllegalArgumentException("not a refusal for bytes: " + refused);
    };
  }

  private static String mib(long bytes) {
    return (bytes >> 20) + " MiB";
  }
}
