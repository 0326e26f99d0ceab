package dev.levee.gateway.config;

import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replaces {@code ${VAR}} and {@code ${VAR:-default}} in config values, as POSIX shells do:
 * {@code ${VAR}} requires VAR to be set; {@code ${VAR:-default}} uses the default when VAR is
 * unset or empty. Applied to scalar values only, never to keys or comments.
 */
final class EnvSubstitution {

  private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?}");

  private final Function<String, String> env;

  EnvSubstitution(Function<String, String> env) {
    this.env = env;
  }

  /**
   * @throws IllegalArgumentException when a variable without default is not set
   */
  String apply(String value) {
    if (value == null || !value.contains("${")) {
      return value;
    }
    Matcher m = VARIABLE.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String name = m.group(1);
      String set = env.apply(name);
      String replacement;
      if (m.group(2) != null) {
        replacement = set == null || set.isEmpty() ? m.group(3) : set;
      } else if (set == null) {
        throw new IllegalArgumentException("environment variable " + name + " is not set (write ${" + name + ":-} to allow empty)");
      } else {
        replacement = set;
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }
}
