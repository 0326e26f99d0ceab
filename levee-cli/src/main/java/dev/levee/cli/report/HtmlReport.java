package dev.levee.cli.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * Renders a {@link Report} as one self-contained HTML page: inline CSS and inline SVG charts, no
 * scripts, fonts or images fetched from anywhere, so it can be archived as a CI artifact or mailed.
 */
public final class HtmlReport {

  private static final String STYLE = """
      body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a202c;margin:0;background:#f7f9fc}
      main{max-width:1120px;margin:0 auto;padding:24px 28px 48px}
      h1{font-size:26px;margin:0 0 8px}h2{font-size:19px;margin:32px 0 4px}h3{font-size:15px;margin:18px 0 4px}
      p.lead{margin:0 0 18px;color:#2d3748}
      p.warning{margin:0 0 18px;padding:8px 12px;border-radius:6px;background:#fefcbf;color:#744210;font-weight:600}p.note{margin:0 0 8px;color:#4a5568}
      .verdict{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:600;font-size:14px;vertical-align:middle}
      .pass{background:#c6f6d5;color:#22543d}.fail{background:#fed7d7;color:#822727}
      table{border-collapse:collapse;margin:8px 0 16px;background:#fff;min-width:60%}
      caption{text-align:left;font-weight:600;padding:0 0 4px}
      th,td{border:1px solid #e2e8f0;padding:6px 12px;text-align:left}th{background:#edf2f7}
      td.num{text-align:right;font-variant-numeric:tabular-nums}
      figure{margin:6px 0 14px;background:#fff;border:1px solid #e2e8f0;border-radius:6px;padding:8px 10px}
      figcaption{font-weight:600;margin:0 0 2px}
      .legend{display:flex;flex-wrap:wrap;gap:14px;font-size:13px;color:#2d3748;margin:0 0 2px}
      .unit{margin-left:auto;color:#718096}
      .swatch{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;vertical-align:-1px}
      """;

  private HtmlReport() {}

  /** The page, as text. */
  public static String render(Report report) {
    StringBuilder html = new StringBuilder(64 * 1024);
    html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<title>").append(escape(report.title())).append("</title><style>").append(STYLE)
        .append("</style></head><body><main>\n");
    html.append("<h1>").append(escape(report.title()));
    if (!report.checks().isEmpty()) {
      html.append(' ').append(verdict(report.passed(), report.passed() ? "passed" : "failed"));
    }
    html.append("</h1>\n<p class=\"lead\">").append(escape(report.lead())).append("</p>\n");
    report.warnings().forEach(w -> html.append("<p class=\"warning\">").append(escape(w)).append("</p>\n"));
    checks(html, report.checks());
    report.tables().forEach(table -> table(html, table));
    for (Report.Section section : report.sections()) {
      html.append("<h2>").append(escape(section.heading())).append("</h2>\n");
      if (!section.note().isEmpty()) {
        html.append("<p class=\"note\">").append(escape(section.note())).append("</p>\n");
      }
      section.charts().forEach(chart -> figure(html, chart));
    }
    return html.append("</main></body></html>\n").toString();
  }

  /**
   * Writes the page to {@code file}, whole or not at all (a temporary file beside it, then a move).
   *
   * @throws IOException when the directory cannot be written
   */
  public static void write(Report report, Path file) throws IOException {
    Path target = file.toAbsolutePath();
    Path directory = target.getParent();
    Files.createDirectories(directory);
    Path partial = Files.createTempFile(directory, target.getFileName().toString(), ".partial");
    try {
      Files.writeString(partial, render(report), StandardCharsets.UTF_8);
      readableByAll(partial); // a temporary file is owner-only; a report is for CI artifacts and web servers too
      Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(partial);
    }
  }

  private static void readableByAll(Path file) throws IOException {
    if (Files.getFileStore(file).supportsFileAttributeView(java.nio.file.attribute.PosixFileAttributeView.class)) {
      Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
    }
  }

  private static void checks(StringBuilder html, List<Report.Check> checks) {
    if (checks.isEmpty()) {
      return;
    }
    html.append("<table><caption>Assertions</caption><tr><th>assertion</th><th>bound</th><th>measured</th><th></th></tr>\n");
    for (Report.Check check : checks) {
      html.append("<tr><td>").append(escape(check.name())).append("</td><td>").append(escape(check.bound()))
          .append("</td><td class=\"num\">").append(escape(check.measured())).append("</td><td>")
          .append(verdict(check.passed(), check.passed() ? "pass" : "fail")).append("</td></tr>\n");
    }
    html.append("</table>\n");
  }

  private static void table(StringBuilder html, Report.Table table) {
    html.append("<table><caption>").append(escape(table.caption())).append("</caption><tr>");
    table.header().forEach(h -> html.append("<th>").append(escape(h)).append("</th>"));
    html.append("</tr>\n");
    for (List<String> row : table.rows()) {
      html.append("<tr>");
      for (int i = 0; i < row.size(); i++) {
        html.append(i == 0 ? "<td>" : "<td class=\"num\">").append(escape(row.get(i))).append("</td>");
      }
      html.append("</tr>\n");
    }
    html.append("</table>\n");
  }

  private static void figure(StringBuilder html, Chart chart) {
    html.append("<figure><figcaption>").append(escape(chart.title())).append("</figcaption><div class=\"legend\">");
    for (Chart.Series series : chart.series()) {
      html.append("<span><span class=\"swatch\" style=\"background:").append(escape(series.color())).append("\"></span>")
          .append(escape(series.name())).append("</span>");
    }
    if (!chart.unit().isEmpty()) {
      html.append("<span class=\"unit\">y: ").append(escape(chart.unit())).append("</span>");
    }
    html.append("</div>").append(Svg.render(chart)).append("</figure>\n");
  }

  private static String verdict(boolean passed, String word) {
    return "<span class=\"verdict " + (passed ? "pass" : "fail") + "\">" + word + "</span>";
  }

  /** {@code text} with {@code & < > " '} escaped for HTML text and attribute values. */
  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
