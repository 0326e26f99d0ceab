package dev.levee.anthropic.error;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Turns what an upstream returned into a {@link Failure}, following DESIGN.md's failure
 * taxonomy and the Anthropic API's "Errors" page:
 *
 * <ul>
 *   <li>429 with a stated wait → {@code RATE_LIMITED}; 429 without one whose message (or {@code
 *       error.details.error_code}) says the spend limit was reached → {@code SPEND_LIMIT}
 *   <li>529, or {@code overloaded_error} → {@code OVERLOADED}
 *   <li>500, 502, 503, 504 and other 5xx → {@code SERVER_ERROR}
 *   <li>401, 403 → {@code CREDENTIALS}
 *   <li>other 4xx (400, 404, 413, 422, ...) → {@code CLIENT_ERROR}; 408 and 409 are transient,
 *       as the official SDKs treat them → {@code SERVER_ERROR}
 * </ul>
 *
 * <p>{@code x-should-retry: true|false} is carried on the failure and overrides the same-target
 * retry rule.
 *
 * <p>A 401 or 403 is a fault of the deployment only when the deployment chose the key (an
 * upstream with its own {@code api-key}); when the gateway forwards the client's own key, it is
 * the client's error: surfaced at once, no fallback, no breaker penalty — else anyone with a bad
 * key could open every circuit for everyone. Thread-safe.
 */
public final class ErrorClassifier {

  private final InstantSource wallClock;

  public ErrorClassifier(InstantSource wallClock) {
    this.wallClock = wallClock;
  }

  /**
   * Classifies an HTTP error response.
   *
   * @param status the HTTP status (>= 400)
   * @param header response header lookup by lower-case name
   * @param body the response body (may be empty)
   */
  public Failure classifyResponse(int status, Function<String, String> header, byte[] body) {
    return classifyResponse(status, header, body, false);
  }

  /**
   * Classifies an HTTP error response.
   *
   * @param clientCredentials whether the call carried the client's own key (then 401 and 403
   *     are the client's error, not the deployment's)
   */
  public Failure classifyResponse(int status, Function<String, String> header, byte[] body, boolean clientCredentials) {
    Failure failure = classify(status, header, body);
    return clientCredentials && failure.kind() == FailureKind.CREDENTIALS
        ? new Failure(FailureKind.CLIENT_ERROR, failure.status(), failure.errorType(), failure.message(),
            failure.retryAfter(), failure.shouldRetry())
        : failure;
  }

  private Failure classify(int status, Function<String, String> header, byte[] body) {
    ApiError error = ApiError.parse(status, body);
    Optional<Duration> retryAfter = RetryAfter.parse(header, wallClock);
    Optional<Boolean> shouldRetry = shouldRetry(header.apply("x-should-retry"));
    FailureKind kind = switch (status) {
      case 429 -> retryAfter.isEmpty() && isSpendLimit(error, body) ? FailureKind.SPEND_LIMIT : FailureKind.RATE_LIMITED;
      case 529 -> FailureKind.OVERLOADED;
      case 401, 403 -> FailureKind.CREDENTIALS;
      case 408, 409 -> FailureKind.SERVER_ERROR;
      default -> status >= 500
          ? ("overloaded_error".equals(error.type()) ? FailureKind.OVERLOADED : FailureKind.SERVER_ERROR)
          : FailureKind.CLIENT_ERROR;
    };
    return new Failure(kind, status, error.type(), error.message(), retryAfter, shouldRetry);
  }

  /**
   * Classifies an {@code event: error} received inside a 200 stream: {@code overloaded_error}
   * and {@code api_error} are retryable; any other type is final and reaches the client as it
   * came.
   */
  public Failure classifyStreamError(String data) {
    JsonNode root = Json.tryParse(data);
    JsonNode error = root == null ? null : root.get("error");
    String type = error == null ? "api_error" : error.path("type").asText("api_error");
    String message = error == null ? "malformed error event" : error.path("message").asText("");
    FailureKind kind = switch (type) {
      case "overloaded_error" -> FailureKind.OVERLOADED;
      case "api_error" -> FailureKind.SERVER_ERROR;
      default -> FailureKind.CLIENT_ERROR; // final: relayed to the client as it came
    };
    return Failure.of(kind, 200, type, message);
  }

  /**
   * Classifies a transport failure: no (complete) response arrived. The message says what
   * happened in plain words ({@link TransportError}), never the JDK's exception text.
   */
  public Failure classifyException(Throwable e) {
    String message = TransportError.describe(e);
    if (e instanceof HttpConnectTimeoutException) {
      return Failure.of(FailureKind.CONNECTION, 0, "connection_error", message);
    }
    if (e instanceof HttpTimeoutException) {
      return Failure.of(FailureKind.TIMEOUT, 0, "timeout", message);
    }
    return Failure.of(FailureKind.CONNECTION, 0, "connection_error", message);
  }

  private static boolean isSpendLimit(ApiError error, byte[] body) {
    String message = error.message().toLowerCase(Locale.ROOT);
    if (message.contains("spend limit") || message.contains("spending limit")) {
      return true;
    }
    JsonNode root = Json.tryParse(body);
    String code = root == null ? "" : root.path("error").path("details").path("error_code").asText("");
    return code.contains("spend_limit");
  }

  private static Optional<Boolean> shouldRetry(String value) {
    if (value == null) {
      return Optional.empty();
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> Optional.of(true);
      case "false" -> Optional.of(false);
      default -> Optional.empty();
    };
  }
}
