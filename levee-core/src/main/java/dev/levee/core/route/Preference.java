package dev.levee.core.route;

import java.util.Locale;
import java.util.Optional;

/**
 * How much a request cares about price ({@code x-levee-prefer}). The published score weighs the
 * cost term 35 for {@link #COST} and 15 otherwise, so {@link #BALANCED} and {@link #QUALITY}
 * score alike today; QUALITY is accepted so clients can state it before it weighs differently.
 */
public enum Preference {
  COST,
  BALANCED,
  QUALITY;

  /** The lower-case name used in headers and config ({@code cost}). */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses a label, any case; empty when {@code text} names no preference. */
  public static Optional<Preference> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    for (Preference preference : values()) {
      if (preference.label().equalsIgnoreCase(text.trim())) {
        return Optional.of(preference);
      }
    }
    return Optional.empty();
  }
}
