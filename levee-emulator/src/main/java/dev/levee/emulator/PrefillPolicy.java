package dev.levee.emulator;

import dev.levee.anthropic.error.ApiError;

/**
 * Which models refuse a trailing assistant message ("prefill"), as Claude models of family 4.6
 * and later do: names ending in {@code -noprefill} (after any {@code -always}), and Claude names
 * whose version is 4.6 or newer.
 *
 * <p>Versions are read from the first numeric parts after {@code claude-}: {@code claude-opus-4-6}
 * is 4.6, {@code claude-sonnet-5} 5.0, {@code claude-3-5-sonnet-20241022} 3.5, {@code
 * claude-sonnet-4-20250514} 4.0 (an 8-digit part is a date, not a minor version).
 */
final class PrefillPolicy {

  /**
   * The error for a refused prefill. Paraphrases the API's 400 ("This model does not support
   * assistant message prefill. ..."), keeping the phrase clients match on.
   */
  static final ApiError REFUSED = ApiError.invalidRequest(
      "This model does not support assistant message prefill; end the conversation with a user message.");

  private PrefillPolicy() {}

  /** Whether {@code model} refuses a conversation that ends with an assistant message. */
  static boolean refusesPrefill(String model) {
    if (model.endsWith("-noprefill") || model.endsWith("-noprefill-always")) {
      return true;
    }
    int claude = model.indexOf("claude-");
    if (claude < 0) {
      return false;
    }
    int major = -1;
    int minor = 0;
    for (String part : model.substring(claude + "claude-".length()).split("[-@:.]")) {
      boolean numeric = !part.isEmpty() && part.chars().allMatch(Character::isDigit);
      if (major < 0) {
        if (numeric && part.length() <= 2) {
          major = Integer.parseInt(part);
        }
      } else {
        if (numeric && part.length() <= 2) {
          minor = Integer.parseInt(part);
        }
        break;
      }
    }
    return major > 4 || (major == 4 && minor >= 6);
  }
}
