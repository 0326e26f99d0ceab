package dev.levee.core.route;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How well each model fits each {@link TaskType}, from 0 to 1: the task-fit term of the score.
 * Immutable and thread-safe.
 *
 * <p>Rows are keyed by a model family ({@code opus}, {@code sonnet}, {@code haiku}) or a full
 * model name. A model takes the row of its exact name if there is one, else the row of the first
 * family (in insertion order) whose name appears in the model name as a dash-separated word
 * ({@code claude-sonnet-4-6} → {@code sonnet}), else {@link #UNKNOWN_FIT}.
 *
 * <p>{@link #defaults()} is the published matrix (simple / complex / creative / code):
 * Opus 0.5 / 1.0 / 1.0 / 0.9, Sonnet 0.8 / 0.8 / 0.7 / 1.0, Haiku 1.0 / 0.4 / 0.3 / 0.6.
 */
public final class TaskFitMatrix {

  /** The fit of a model the matrix does not know: 0.5. */
  public static final double UNKNOWN_FIT = 0.5;

  private static final TaskFitMatrix DEFAULTS = new TaskFitMatrix(defaultRows());

  private final Map<String, Map<TaskType, Double>> rows;

  private TaskFitMatrix(Map<String, Map<TaskType, Double>> rows) {
    Map<String, Map<TaskType, Double>> copy = new LinkedHashMap<>();
    rows.forEach((key, row) -> {
      Objects.requireNonNull(key, "model");
      row.forEach((task, fit) -> {
        if (!(fit >= 0 && fit <= 1)) {
          throw new IllegalArgumentException("task fit of " + key + " for " + task.label() + " must be within 0..1, was " + fit);
        }
      });
      copy.put(key.toLowerCase(Locale.ROOT), Map.copyOf(row));
    });
    this.rows = Collections.unmodifiableMap(copy);
  }

  /** The published matrix (see the class comment). */
  public static TaskFitMatrix defaults() {
    return DEFAULTS;
  }

  /**
   * A matrix of exactly {@code rows} (family or model name → task → fit); a task missing from a
   * row fits {@link #UNKNOWN_FIT}.
   *
   * @throws IllegalArgumentException when a fit is outside 0..1
   */
  public static TaskFitMatrix of(Map<String, Map<TaskType, Double>> rows) {
    return new TaskFitMatrix(rows);
  }

  /** The fit of {@code model} for {@code task}, 0..1. */
  public double fit(String model, TaskType task) {
    String name = model.toLowerCase(Locale.ROOT);
    Map<TaskType, Double> row = rows.get(name);
    if (row == null) {
      List<String> words = List.of(name.split("-"));
      for (Map.Entry<String, Map<TaskType, Double>> entry : rows.entrySet()) {
        if (words.contains(entry.getKey())) {
          row = entry.getValue();
          break;
        }
      }
    }
    return row == null ? UNKNOWN_FIT : row.getOrDefault(task, UNKNOWN_FIT);
  }

  /** Every row, in insertion order. */
  public Map<String, Map<TaskType, Double>> rows() {
    return rows;
  }

  private static Map<String, Map<TaskType, Double>> defaultRows() {
    Map<String, Map<TaskType, Double>> rows = new LinkedHashMap<>();
    rows.put("opus", row(0.5, 1.0, 1.0, 0.9));
    rows.put("sonnet", row(0.8, 0.8, 0.7, 1.0));
    rows.put("haiku", row(1.0, 0.4, 0.3, 0.6));
    return rows;
  }

  private static Map<TaskType, Double> row(double simple, double complex, double creative, double code) {
    Map<TaskType, Double> row = new EnumMap<>(TaskType.class);
    row.put(TaskType.SIMPLE, simple);
    row.put(TaskType.COMPLEX, complex);
    row.put(TaskType.CREATIVE, creative);
    row.put(TaskType.CODE, code);
    return row;
  }
}
