package dev.levee.cli.report;

import java.util.List;

/**
 * One chart over time: one value per second from second 0, drawn as inline SVG by {@link Svg}.
 *
 * @param title the chart's heading, e.g. {@code Answers by source}
 * @param unit what the y axis counts, e.g. {@code answers / s}
 * @param style how the series are drawn
 * @param series the series, drawn in order (stacked bottom-up for {@link Style#STACKED})
 * @param bands shaded spans of time, e.g. the storm
 * @param levels for a {@link Style#LEVEL} chart, the names of the values 0, 1, 2, … drawn top-down
 *     (e.g. {@code T0..T3}); empty otherwise
 */
public record Chart(String title, String unit, Style style, List<Series> series, List<Band> bands, List<String> levels) {

  public Chart {
    series = List.copyOf(series);
    bands = List.copyOf(bands);
    levels = List.copyOf(levels);
    if (style == Style.LEVEL && levels.isEmpty()) {
      throw new IllegalArgumentException("a LEVEL chart names its levels");
    }
  }

  /** A line chart of {@code series}. */
  public static Chart lines(String title, String unit, List<Series> series, List<Band> bands) {
    return new Chart(title, unit, Style.LINE, series, bands, List.of());
  }

  /** Bars per second, the series stacked on each other. */
  public static Chart stacked(String title, String unit, List<Series> series, List<Band> bands) {
    return new Chart(title, unit, Style.STACKED, series, bands, List.of());
  }

  /** Steps between named levels (value i = {@code levels.get(i)}, the first at the top). */
  public static Chart levels(String title, List<String> levels, List<Series> series, List<Band> bands) {
    return new Chart(title, "", Style.LEVEL, series, bands, levels);
  }

  /** How a chart draws its series. */
  public enum Style { LINE, STACKED, LEVEL }

  /**
   * One series: a name for the legend, a CSS colour and one value per second ({@code NaN}: no
   * reading that second, left as a gap).
   */
  public record Series(String name, String color, double[] values) {

    public Series {
      values = values.clone();
    }

    @Override
    public double[] values() {
      return values.clone();
    }

    /** The number of seconds it covers. */
    public int length() {
      return values.length;
    }

    double at(int second) {
      return second < values.length ? values[second] : Double.NaN;
    }
  }

  /** A shaded span from second {@code from} to second {@code to}, labelled (e.g. {@code storm}). */
  public record Band(double from, double to, String label, String color) {}
}
