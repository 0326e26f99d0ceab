package dev.levee.cli;

import dev.levee.anthropic.Units;
import java.time.Duration;
import picocli.CommandLine;

/** Reads {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, or a plain number of seconds ({@link Units}). */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

  @Override
  public Duration convert(String value) {
    try {
      return Units.durationOrSeconds(value);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException("'" + value + "' is not a duration such as 60s, 2m or 500ms");
    }
  }
}
