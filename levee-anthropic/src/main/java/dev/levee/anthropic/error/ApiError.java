package dev.levee.anthropic.error;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import java.util.Objects;

/**
 * An error in the Messages API's shape: {@code {"type":"error","error":{"type":...,"message":...}}}
 * with the matching HTTP status.
 *
 * <p>Types and statuses follow the Anthropic API's "Errors" page: 400 {@code
 * invalid_request_error}, 401 {@code authentication_error}, 402 {@code billing_error}, 403 {@code
 * permission_error}, 404 {@code not_found_error}, 413 {@code request_too_large}, 429 {@code
 * rate_limit_error}, 500 {@code api_error}, 504 {@code timeout_error}, 529 {@code
 * overloaded_error}.
 *
 * @param status the HTTP status
 * @param type the error type
 * @param message a human-readable message; never contains credentials
 * @param reason why Levee refused the request, for the access log and metrics only: never sent
 *     (not in {@link #toJson}), as the message may quote the client's input and the code never does;
 *     {@link RefusalReason#OTHER} unless the refusal site gave one ({@link #because})
 */
public record ApiError(int status, String type, String message, RefusalReason reason) {

  public ApiError {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(reason, "reason");
  }

  /** An error with no refusal reason of its own ({@link RefusalReason#OTHER}). */
  public ApiError(int status, String type, String message) {
    this(status, type, message, RefusalReason.OTHER);
  }

  /** This error, refused for {@code reason}: the same answer, with a code for the access log. */
  public ApiError because(RefusalReason reason) {
    return new ApiError(status, type, message, reason);
  }

  public static ApiError invalidRequest(String message) {
    return new ApiError(400, "invalid_request_error", message);
  }

  public static ApiError notFound(String message) {
    return new ApiError(404, "not_found_error", message);
  }

  public static ApiError requestTooLarge(String message) {
    return new ApiError(413, "request_too_large", message);
  }

  public static ApiError rateLimited(String message) {
    return new ApiError(429, "rate_limit_error", message);
  }

  public static ApiError api(String message) {
    return new ApiError(500, "api_error", message);
  }

  public static ApiError overloaded(String message) {
    return new ApiError(529, "overloaded_error", message);
  }

  /** The conventional error type for a status (4xx not listed: {@code invalid_request_error}). */
  public static String typeFor(int status) {
    return switch (status) {
      case 401 -> "authentication_error";
      case 402 -> "billing_error";
      case 403 -> "permission_error";
      case 404 -> "not_found_error";
      case 413 -> "request_too_large";
      case 429 -> "rate_limit_error";
      case 504 -> "timeout_error";
      case 529 -> "overloaded_error";
      default -> status >= 500 ? "api_error" : "invalid_request_error";
    };
  }

  /** The status the API uses for an error type (an in-band stream error has none of its own). */
  public static int statusFor(String type) {
    return switch (type) {
      case "authentication_error" -> 401;
      case "billing_error" -> 402;
      case "permission_error" -> 403;
      case "not_found_error" -> 404;
      case "request_too_large" -> 413;
      case "rate_limit_error" -> 429;
      case "api_error" -> 500;
      case "timeout_error" -> 504;
      case "overloaded_error" -> 529;
      default -> 400;
    };
  }

  /**
   * The error that tells a client about {@code failure}: the upstream's own status and type when
   * it answered with an error (or sent an error event inside a 200 stream); for failures without
   * an answer, 529 {@code overloaded_error}, 504 {@code timeout_error} (timeouts, stalls) or 502
   * {@code api_error} (resets, cuts, malformed streams).
   */
  public static ApiError of(dev.levee.core.retry.Failure failure, String message) {
    if (failure.status() >= 400) {
      return new ApiError(failure.status(), failure.errorType(), message);
    }
    boolean apiType = statusFor(failure.errorType()) != 400 || failure.errorType().equals("invalid_request_error");
    if (failure.status() == 200 && (apiType || failure.kind() == dev.levee.core.retry.FailureKind.CLIENT_ERROR)) {
      return new ApiError(statusFor(failure.errorType()), failure.errorType(), message); // an in-band error event
    }
    return switch (failure.kind()) {
      case OVERLOADED -> new ApiError(529, "overloaded_error", message);
      case TIMEOUT -> new ApiError(504, "timeout_error", message);
      default -> new ApiError(502, "api_error", message);
    };
  }

  /** This error as a JSON body tree, optionally with a {@code request_id}. */
  public ObjectNode toJson(String requestId) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("type", "error");
    ObjectNode error = body.putObject("error");
    error.put("type", type);
    error.put("message", message);
    if (requestId != null) {
      body.put("request_id", requestId);
    }
    return body;
  }

  /** This error as body bytes. */
  public byte[] toBytes(String requestId) {
    return Json.bytes(toJson(requestId));
  }

  /**
   * This error as a stream's {@code event: error} (the API's in-stream error shape: its data is
   * {@link #toJson}), for a stream Levee ends itself after its head was sent.
   */
  public SseEvent toEvent(String requestId) {
    return new SseEvent("error", Json.string(toJson(requestId)));
  }

  /**
   * Reads an error body. Tolerates anything: a body that is not an Anthropic error gives type
   * {@link #typeFor(int)} and the body's first 200 characters as message.
   */
  public static ApiError parse(int status, byte[] body) {
    JsonNode root = Json.tryParse(body);
    JsonNode error = root == null ? null : root.get("error");
    if (error != null && error.isObject()) {
      return new ApiError(status, error.path("type").asText(typeFor(status)), error.path("message").asText(""));
    }
    String text = body == null ? "" : new String(body, java.nio.charset.StandardCharsets.UTF_8);
    return new ApiError(status, typeFor(status), text.length() > 200 ? text.substring(0, 200) : text);
  }
}
