package dev.levee.cli.report;

import java.util.Locale;

/**
 * Draws a {@link Chart} as inline SVG: seconds on the x axis, a grid, shaded bands, then the series
 * (lines, stacked bars or steps between named levels). Pure function of the chart; no scripts, no
 * external resources, so the page that holds it stays self-contained.
 */
final class Svg {

  static final int WIDTH = 1080;
  private static final int LEFT = 92;
  private static final int RIGHT = 16;
  private static final int TOP = 22;
  private static final int BOTTOM = 30;
  private static final int[] X_STEPS = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1200, 3600};

  private final Chart chart;
  private final int height;
  private final int seconds;
  private final double max;
  private final int ticks;
  private final StringBuilder out = new StringBuilder();

  private Svg(Chart chart) {
    this.chart = chart;
    this.height = chart.style() == Chart.Style.LEVEL ? 60 + 36 * chart.levels().size() : 230;
    this.seconds = Math.max(1, chart.series().stream().mapToInt(Chart.Series::length).max().orElse(1));
    double top = Math.max(1, highest() * 1.05);
    double step = niceStep(top / 4);
    this.ticks = chart.style() == Chart.Style.LEVEL ? chart.levels().size() - 1 : (int) Math.ceil(top / step - 1e-9);
    this.max = chart.style() == Chart.Style.LEVEL ? chart.levels().size() - 1 : ticks * step;
  }

  /** The chart as one {@code <svg>} element. */
  static String render(Chart chart) {
    return new Svg(chart).draw();
  }

  private String draw() {
    out.append(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"100%%\" role=\"img\" aria-label=\"%s\">",
        WIDTH, height, HtmlReport.escape(chart.title())));
    out.append("<title>").append(HtmlReport.escape(chart.title())).append("</title>");
    bands();
    grid();
    switch (chart.style()) {
      case LINE -> chart.series().forEach(this::line);
      case LEVEL -> chart.series().forEach(this::steps);
      case STACKED -> stacks();
    }
    bandEdges();
    out.append(String.format(Locale.ROOT,
        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#9aa4b2\"/>",
        LEFT, TOP, plotWidth(), plotHeight()));
    return out.append("</svg>").toString();
  }

  private void bands() {
    for (Chart.Band band : chart.bands()) {
      double from = x(Math.max(0, band.from()));
      double to = x(Math.min(seconds, band.to()));
      if (to <= from) {
        continue;
      }
      out.append(String.format(Locale.ROOT,
          "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.16\"/>",
          from, TOP, to - from, plotHeight(), band.color()));
      out.append(String.format(Locale.ROOT,
          "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" fill=\"#4a5568\">%s</text>", from + 4, TOP - 6,
          HtmlReport.escape(band.label())));
    }
  }

  /** Dashed edges over the series, so a band stays visible under full bars. */
  private void bandEdges() {
    for (Chart.Band band : chart.bands()) {
      for (double second : new double[] {band.from(), band.to()}) {
        if (second > 0 && second < seconds) {
          out.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
              + "stroke-width=\"1.5\" stroke-dasharray=\"5 4\"/>", x(second), TOP, x(second), TOP + plotHeight(), band.color()));
        }
      }
    }
  }

  private void grid() {
    if (chart.style() == Chart.Style.LEVEL) {
      for (int i = 0; i < chart.levels().size(); i++) {
        yLine(y(i), chart.levels().get(i));
      }
    } else {
      for (int i = 0; i <= ticks; i++) {
        double value = max * i / ticks;
        yLine(y(value), number(value));
      }
    }
    int step = xStep();
    for (int s = 0; s <= seconds; s += step) {
      double x = x(s);
      out.append(String.format(Locale.ROOT,
          "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e2e8f0\"/>", x, TOP, x, TOP + plotHeight()));
      out.append(String.format(Locale.ROOT,
          "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" fill=\"#4a5568\">%d s</text>", x,
          height - 10, s));
    }
  }

  private void yLine(double y, String label) {
    out.append(String.format(Locale.ROOT,
        "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e2e8f0\"/>", LEFT, y, LEFT + plotWidth(), y));
    out.append(String.format(Locale.ROOT,
        "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\" fill=\"#4a5568\">%s</text>", LEFT - 8, y + 4,
        HtmlReport.escape(label)));
  }

  private void line(Chart.Series series) {
    StringBuilder d = new StringBuilder();
    boolean pen = false;
    for (int s = 0; s < series.length(); s++) {
      double v = series.at(s);
      if (Double.isNaN(v)) {
        pen = false;
        continue;
      }
      d.append(pen ? 'L' : 'M').append(String.format(Locale.ROOT, "%.1f %.1f ", x(s + 0.5), y(v)));
      pen = true;
    }
    path(d, series.color());
  }

  private void steps(Chart.Series series) {
    StringBuilder d = new StringBuilder();
    boolean pen = false;
    for (int s = 0; s < series.length(); s++) {
      double v = series.at(s);
      if (Double.isNaN(v)) {
        pen = false;
        continue;
      }
      d.append(pen ? 'L' : 'M').append(String.format(Locale.ROOT, "%.1f %.1f L%.1f %.1f ", x(s), y(v), x(s + 1), y(v)));
      pen = true;
    }
    path(d, series.color());
  }

  private void path(StringBuilder d, String color) {
    if (!d.isEmpty()) {
      out.append("<path d=\"").append(d.toString().trim()).append("\" fill=\"none\" stroke=\"").append(color)
          .append("\" stroke-width=\"2.5\" stroke-linejoin=\"round\"/>");
    }
  }

  private void stacks() {
    double width = Math.max(0.5, (double) plotWidth() / seconds - (seconds <= 200 ? 1 : 0));
    for (int s = 0; s < seconds; s++) {
      double base = 0;
      for (Chart.Series series : chart.series()) {
        double v = series.at(s);
        if (Double.isNaN(v) || v <= 0) {
          continue;
        }
        out.append(String.format(Locale.ROOT,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>", x(s), y(base + v), width,
            y(base) - y(base + v), series.color()));
        base += v;
      }
    }
  }

  private double highest() {
    double highest = 0;
    for (int s = 0; s < seconds; s++) {
      double sum = 0;
      for (Chart.Series series : chart.series()) {
        double v = series.at(s);
        if (!Double.isNaN(v)) {
          sum = chart.style() == Chart.Style.STACKED ? sum + v : Math.max(sum, v);
        }
      }
      highest = Math.max(highest, sum);
    }
    return highest;
  }

  /** The smallest of 1, 2, 2.5, 5 × 10^k at or above {@code value} (at least 0.25). */
  static double niceStep(double value) {
    if (!(value > 0.25)) {
      return 0.25;
    }
    double power = Math.pow(10, Math.floor(Math.log10(value)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * power >= value - 1e-9) {
        return m * power;
      }
    }
    return 10 * power;
  }

  private int xStep() {
    for (int step : X_STEPS) {
      if (seconds / step <= 12) {
        return step;
      }
    }
    return X_STEPS[X_STEPS.length - 1];
  }

  private double x(double second) {
    return LEFT + second * plotWidth() / seconds;
  }

  private double y(double value) {
    return chart.style() == Chart.Style.LEVEL
        ? TOP + 10 + value * (plotHeight() - 20) / Math.max(1, max)
        : TOP + plotHeight() - value * plotHeight() / max;
  }

  private int plotWidth() {
    return WIDTH - LEFT - RIGHT;
  }

  private int plotHeight() {
    return height - TOP - BOTTOM;
  }

  private static String number(double value) {
    return value == Math.rint(value) ? String.valueOf((long) value)
        : String.format(Locale.ROOT, "%.2f", value).replaceAll("0+$", "");
  }
}
