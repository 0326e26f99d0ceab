package dev.levee.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Reads {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, or a plain number of seconds. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

  private static final Pattern FORM = Pattern.compile("(\\d+)(ms|s|m|h)?");

  @Override
  public Duration convert(String value) {
    Matcher m = FORM.matcher(value.trim());
    if (!m.matches()) {
      throw new CommandLine.TypeConversionException("'" + value + "' is not a duration such as 60s, 2m or 500ms");
    }
    long amount = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    return switch (unit) {
      case "ms" -> Duration.ofMillis(amount);
      case "m" -> Duration.ofMinutes(amount);
      case "h" -> Duration.ofHours(amount);
      default -> Duration.ofSeconds(amount);
    };
  }
}
