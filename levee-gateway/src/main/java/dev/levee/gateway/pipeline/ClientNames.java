package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import java.util.Optional;

/**
 * The names a client chooses that Levee uses as keys and echoes: a {@code model} no alias names
 * (it becomes a target, {@code upstream/model}, in {@code x-levee-model} and {@code x-levee-reason},
 * the access log, tier and breaker keys in Redis) and {@code x-levee-tenant} (part of the tenant
 * partition, in cache keys in Redis). Ingress checks both before anything is sent upstream, so a
 * name that would break a response head or a key never costs a generation.
 *
 * <p>A name is 1 to its limit of visible ASCII characters ({@code !} to {@code ~}: no space, no
 * control character, nothing beyond ASCII), and no brace — braces mark the hash tag of a Redis key.
 * That admits every model id the Anthropic API, Bedrock and Vertex use ({@code
 * claude-sonnet-4-5-20250929}, {@code anthropic.claude-3-5-sonnet-20240620-v1:0}, inference-profile
 * ARNs, {@code claude-3-5-sonnet@20240620}). Batch creation checks each request's {@code model} the
 * same way ({@link #model}), so a batch is refused whole rather than each such request erroring
 * when a worker runs it. Thread-safe (stateless).
 */
public final class ClientNames {

  /** The longest model name no alias names, in characters (Anthropic model ids are a few dozen). */
  static final int MAX_MODEL = 256;

  /** The longest {@code x-levee-tenant}, in characters. */
  static final int MAX_TENANT = 128;

  private ClientNames() {}

  /**
   * Checks a {@code model} that is not a configured alias (aliases are the operator's names and
   * are not checked).
   *
   * @return the 400 {@code invalid_request_error} to answer, naming the {@code model} field; empty
   *     when the name may be used
   */
  public static Optional<ApiError> model(String model) {
    return fits(model, MAX_MODEL) ? Optional.empty() : Optional.of(ApiError.invalidRequest(
        "model: must be a configured alias or a model id of 1 to " + MAX_MODEL
            + " visible ASCII characters (no spaces, control characters or braces); got " + describe(model, MAX_MODEL))
        .because(RefusalReason.BAD_MODEL));
  }

  /**
   * Checks {@code x-levee-tenant}.
   *
   * @param tenant the header's first value, trimmed; null when absent (nothing to check)
   * @return the 400 {@code invalid_request_error} to answer, naming the header; empty when it may be used
   */
  static Optional<ApiError> tenant(String tenant) {
    return tenant == null || fits(tenant, MAX_TENANT) ? Optional.empty() : Optional.of(ApiError.invalidRequest(
        "x-levee-tenant: must be 1 to " + MAX_TENANT
            + " visible ASCII characters (no spaces, control characters or braces); got " + describe(tenant, MAX_TENANT))
        .because(RefusalReason.BAD_TENANT));
  }

  private static boolean fits(String name, int max) {
    if (name == null || name.isEmpty() || name.length() > max) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < '!' || c > '~' || c == '{' || c == '}') {
        return false;
      }
    }
    return true;
  }

  /** What was wrong, without echoing the name (it may be huge or hold line breaks). */
  private static String describe(String name, int max) {
    if (name == null || name.isEmpty()) {
      return "an empty name";
    }
    return name.length() > max ? name.length() + " characters" : "a name with a character outside that set";
  }
}
