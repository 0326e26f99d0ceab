package dev.levee.sim.study;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One retry-budget setting: {@code max} tokens, {@code ratio} tokens per success, written
 * {@code max/ratio} (e.g. {@code 200/0.1}).
 *
 * @param max the budget's capacity and initial fill, in tokens (> 0)
 * @param ratio tokens earned per success (>= 0)
 */
public record BudgetSetting(double max, double ratio) {

  public BudgetSetting {
    if (!(max > 0)) throw new IllegalArgumentException("budget max must be positive, was " + max);
    if (!(ratio >= 0)) throw new IllegalArgumentException("budget ratio must not be negative, was " + ratio);
  }

  /**
   * Parses {@code max/ratio}.
   *
   * @throws IllegalArgumentException when the text is not two numbers separated by '/'
   */
  public static BudgetSetting parse(String text) {
    String[] parts = text.trim().split("/");
    if (parts.length != 2) {
      throw new IllegalArgumentException("a budget is max/ratio, e.g. 200/0.1, not '" + text + "'");
    }
    try {
      return new BudgetSetting(Double.parseDouble(parts[0].trim()), Double.parseDouble(parts[1].trim()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("a budget is max/ratio, e.g. 200/0.1, not '" + text + "'", e);
    }
  }

  /** Parses a comma-separated list, e.g. {@code 200/0.1,400/0.2}. */
  public static List<BudgetSetting> parseList(String text) {
    List<BudgetSetting> out = new ArrayList<>();
    for (String part : text.split(",")) {
      if (!part.isBlank()) out.add(parse(part));
    }
    return List.copyOf(out);
  }

  /** {@code 200 / ratio 0.1} */
  public String label() {
    return number(max) + " / ratio " + number(ratio);
  }

  static String number(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? Long.toString((long) value) : String.format(Locale.ROOT, "%s", value);
  }
}
