package dev.levee.anthropic.stream;

import java.util.Locale;

/**
 * Whether a model accepts a trailing assistant message (prefill), when the config does not say.
 * The gateway and the emulator both ask here, so they cannot disagree.
 *
 * <p>Claude models of the 4.6 generation and later reject a prefilled final assistant turn with
 * a 400; earlier Claude models accept it. Emulator models ending in {@code -noprefill} (before or
 * after {@code -always}) reject it too. Any other name is assumed to accept it.
 *
 * <p>The version is read, case-insensitively, from the first numeric parts after {@code claude-},
 * wherever it appears (so provider prefixes such as {@code anthropic.} or {@code models/} do not
 * matter): {@code claude-opus-4-6} and {@code claude-opus-4.6} are 4.6, {@code claude-sonnet-5}
 * is 5.0, {@code claude-3-5-sonnet-20241022} is 3.5, and {@code claude-sonnet-4-20250514} is 4.0
 * (a part longer than two digits is a date, not a minor version).
 */
public final class PrefillSupport {

  private PrefillSupport() {}

  /** The default for {@code model}: {@code true} if it accepts prefill. */
  public static boolean byDefault(String model) {
    String name = model.toLowerCase(Locale.ROOT);
    if (name.endsWith("-noprefill") || name.endsWith("-noprefill-always")) {
      return false;
    }
    int claude = name.indexOf("claude-");
    if (claude < 0) {
      return true;
    }
    int major = -1;
    int minor = 0;
    for (String part : name.substring(claude + "claude-".length()).split("[-@:.]")) {
      boolean version = !part.isEmpty() && part.length() <= 2 && part.chars().allMatch(Character::isDigit);
      if (major < 0) {
        if (version) {
          major = Integer.parseInt(part);
        }
      } else {
        if (version) {
          minor = Integer.parseInt(part);
        }
        break;
      }
    }
    return major < 4 || (major == 4 && minor < 6);
  }
}
