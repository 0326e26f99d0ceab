package dev.levee.sim.report;

import dev.levee.sim.Timeline;
import dev.levee.sim.study.OverloadStudy;
import java.util.List;
import java.util.Locale;
import java.util.function.IntToDoubleFunction;

/**
 * The overload study as one self-contained SVG image (no scripts, fonts or links): a panel per
 * policy with, per second, the offered load (calls reaching the upstream), the goodput
 * (requests that succeeded), the requests arriving, the upstream's nominal capacity, and the
 * policy's guard (budget or throttle tokens, admit probability, breaker state) as a percentage on
 * the right axis. The trigger is shaded. All panels share one scale so they compare at a glance.
 */
public final class OverloadChart {

  private static final int PANEL_W = 580;
  private static final int PANEL_H = 250;
  private static final int COLUMNS = 2;
  private static final int TOP = 96;
  private static final int LEFT = 56;
  private static final int PLOT_W = 470;
  private static final int PLOT_H = 170;

  private static final String OFFERED = "#d62728";
  private static final String GOODPUT = "#2ca02c";
  private static final String ARRIVALS = "#444444";
  private static final String CAPACITY = "#999999";
  private static final String GUARD = "#1f77b4";

  private OverloadChart() {}

  /** Renders the chart of {@code rows}, the results of {@code study}. */
  public static String svg(OverloadStudy study, List<OverloadStudy.Row> rows) {
    int seconds = 1;
    double yMax = study.capacity();
    for (OverloadStudy.Row row : rows) {
      Timeline t = row.stats().timeline();
      seconds = Math.max(seconds, t.seconds());
      for (int s = 0; s < t.seconds(); s++) {
        yMax = Math.max(yMax, Math.max(t.calls(s), Math.max(t.successes(s), t.arrivals(s))));
      }
    }
    yMax = niceCeiling(yMax);
    int panelRows = (rows.size() + COLUMNS - 1) / COLUMNS;
    int width = COLUMNS * PANEL_W + 20;
    int height = TOP + panelRows * PANEL_H + 10;

    StringBuilder svg = new StringBuilder();
    svg.append(f("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
        + "font-family=\"sans-serif\" font-size=\"11\">\n", width, height, width, height));
    svg.append(f("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height));
    svg.append(f("<text x=\"16\" y=\"24\" font-size=\"16\" font-weight=\"bold\">%s</text>\n", escape(
        f("Overload feedback: %.0f req/s, capacity %.0f/s dropping to %.0f/s during %.0f–%.0f s, a 529 costs %.2f of a call",
            study.rate(), study.capacity(), study.triggerCapacity(), study.triggerStart(), study.triggerEnd(),
            study.rejectCost()))));
    svg.append(f("<text x=\"16\" y=\"42\" fill=\"#555\">%s</text>\n", escape(f(
        "per second; left axis calls/s (0–%.0f), right axis guard %%; shaded: trigger; warm-up before %.0f s not counted in the table",
        yMax, study.warmup()))));
    legend(svg, 16, 64);

    for (int i = 0; i < rows.size(); i++) {
      int px = 10 + (i % COLUMNS) * PANEL_W;
      int py = TOP + (i / COLUMNS) * PANEL_H;
      panel(svg, study, rows.get(i), px, py, seconds, yMax);
    }
    return svg.append("</svg>\n").toString();
  }

  private static void legend(StringBuilder svg, int x, int y) {
    String[][] items = {
        {OFFERED, "offered load (upstream calls/s)", ""},
        {GOODPUT, "goodput (successes/s)", ""},
        {ARRIVALS, "requests arriving/s", "2,2"},
        {CAPACITY, "nominal capacity", "6,3"},
        {GUARD, "guard % (tokens, admit p., breaker)", ""}};
    int cx = x;
    for (String[] item : items) {
      svg.append(f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>", cx, y, cx + 22, y,
          item[0], item[2].isEmpty() ? "" : " stroke-dasharray=\"" + item[2] + "\""));
      svg.append(f("<text x=\"%d\" y=\"%d\">%s</text>\n", cx + 27, y + 4, escape(item[1])));
      cx += 40 + item[1].length() * 6;
    }
  }

  private static void panel(StringBuilder svg, OverloadStudy study, OverloadStudy.Row row, int px, int py,
      int seconds, double yMax) {
    Timeline t = row.stats().timeline();
    int x0 = px + LEFT;
    int y0 = py + 34;
    String recovery = row.recovered() ? f("recovered %.0f s after the trigger", row.recoverySeconds()) : "never recovered";
    svg.append(f("<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">%s</text>\n", x0, py + 16, escape(row.policy())));
    svg.append(f("<text x=\"%d\" y=\"%d\" fill=\"#555\">%s</text>\n", x0, py + 29, escape(f(
        "loss %.1f%%, amplification %.2f, %s", 100 * row.stats().loss(), row.stats().amplification(), recovery))));
    // trigger and frame
    double tx0 = x(study.triggerStart(), x0, seconds);
    double tx1 = x(study.triggerEnd(), x0, seconds);
    svg.append(f("<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#fde9c8\"/>\n", tx0, y0, tx1 - tx0, PLOT_H));
    svg.append(f("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#bbb\"/>\n", x0, y0, PLOT_W, PLOT_H));
    // axes
    for (int k = 0; k <= 4; k++) {
      double v = yMax * k / 4;
      double yy = y0 + PLOT_H - PLOT_H * k / 4.0;
      svg.append(f("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>", x0, yy, x0 + PLOT_W, yy));
      svg.append(f("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>", x0 - 4, yy + 4, v));
      svg.append(f("<text x=\"%d\" y=\"%.1f\" fill=\"%s\">%d%%</text>\n", x0 + PLOT_W + 4, yy + 4, GUARD, 25 * k));
    }
    int step = seconds > 600 ? 120 : seconds > 240 ? 60 : 30;
    for (int s = 0; s <= seconds; s += step) {
      svg.append(f("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d s</text>", x(s, x0, seconds), y0 + PLOT_H + 14, s));
    }
    svg.append('\n');
    line(svg, CAPACITY, "6,3", seconds, x0, y0, s -> study.capacityAt(s + 0.5) / yMax);
    line(svg, ARRIVALS, "2,2", seconds, x0, y0, s -> s < t.seconds() ? t.arrivals(s) / yMax : 0);
    line(svg, OFFERED, "", seconds, x0, y0, s -> s < t.seconds() ? t.calls(s) / yMax : 0);
    line(svg, GOODPUT, "", seconds, x0, y0, s -> s < t.seconds() ? t.successes(s) / yMax : 0);
    if (!row.guardName().isEmpty()) {
      line(svg, GUARD, "", seconds, x0, y0, s -> s < t.seconds() ? t.guard(s) : Double.NaN);
      svg.append(f("<text x=\"%d\" y=\"%d\" fill=\"%s\" text-anchor=\"end\">guard: %s</text>\n",
          x0 + PLOT_W - 4, y0 + 12, GUARD, escape(row.guardName())));
    }
  }

  /** A polyline through one value per second, {@code fraction(s)} of the plot height (NaN skipped). */
  private static void line(StringBuilder svg, String color, String dash, int seconds, int x0, int y0,
      IntToDoubleFunction fraction) {
    StringBuilder points = new StringBuilder();
    for (int s = 0; s < seconds; s++) {
      double v = fraction.applyAsDouble(s);
      if (Double.isNaN(v)) continue;
      double yy = y0 + PLOT_H - Math.max(0, Math.min(1, v)) * PLOT_H;
      points.append(f("%.1f,%.1f ", x(s + 0.5, x0, seconds), yy));
    }
    svg.append(f("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"%s\"/>\n", color,
        dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\"", points.toString().trim()));
  }

  private static double x(double second, int x0, int seconds) {
    return x0 + PLOT_W * second / seconds;
  }

  private static double niceCeiling(double v) {
    double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * magnitude >= v) return m * magnitude;
    }
    return 10 * magnitude;
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
