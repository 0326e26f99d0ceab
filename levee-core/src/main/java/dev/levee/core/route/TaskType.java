package dev.levee.core.route;

import java.util.Locale;
import java.util.Optional;

/**
 * What a request asks the model to do, as the client states it ({@code x-levee-task}) or the
 * alias defaults it: one column of the {@link TaskFitMatrix}.
 */
public enum TaskType {
  /** Short answers, classification, extraction. */
  SIMPLE,
  /** Multi-step reasoning, analysis. */
  COMPLEX,
  /** Open-ended writing. */
  CREATIVE,
  /** Writing, reading or fixing code. */
  CODE;

  /** The lower-case name used in headers and config ({@code code}). */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses a label, any case; empty when {@code text} names no task type. */
  public static Optional<TaskType> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    for (TaskType type : values()) {
      if (type.label().equalsIgnoreCase(text.trim())) {
        return Optional.of(type);
      }
    }
    return Optional.empty();
  }
}
