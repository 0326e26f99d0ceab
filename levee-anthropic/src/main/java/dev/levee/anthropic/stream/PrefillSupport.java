package dev.levee.anthropic.stream;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a model accepts a trailing assistant message (prefill), when the config does not say.
 *
 * <p>Claude models of the 4.6 generation and later reject a prefilled final assistant turn with
 * a 400; earlier Claude models accept it. Emulator models ending in {@code -noprefill} reject it
 * too. Any other name is assumed to accept it.
 */
public final class PrefillSupport {

  // claude-opus-4-6, claude-sonnet-4-6-20260101, claude-opus-4-7, claude-sonnet-5, claude-3-7-sonnet-latest
  private static final Pattern NEW_NAMING = Pattern.compile("claude-(?:opus|sonnet|haiku)-(\\d+)(?:-(\\d{1,2}))?(?:-|$).*");
  private static final Pattern OLD_NAMING = Pattern.compile("claude-(\\d+)(?:-(\\d{1,2}))?-(?:opus|sonnet|haiku).*");

  private PrefillSupport() {}

  /** The default for {@code model}. */
  public static boolean byDefault(String model) {
    String name = model.toLowerCase(Locale.ROOT);
    if (name.endsWith("-noprefill")) {
      return false;
    }
    int slash = name.lastIndexOf('/');
    name = slash >= 0 ? name.substring(slash + 1) : name;
    Matcher m = NEW_NAMING.matcher(name);
    if (!m.matches()) {
      m = OLD_NAMING.matcher(name);
      if (!m.matches()) {
        return true;
      }
    }
    int major = Integer.parseInt(m.group(1));
    int minor = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
    return major < 4 || (major == 4 && minor < 6);
  }
}
