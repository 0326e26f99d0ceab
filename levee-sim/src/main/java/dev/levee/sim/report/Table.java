package dev.levee.sim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A small result table that renders as an aligned Markdown table, CSV or JSON.
 *
 * <p>Each cell has a display text (for the table) and a raw value (for CSV and JSON): a {@link
 * String}, a {@link Number} or null. JSON writes NaN and infinities as null. Not thread-safe.
 */
public final class Table {

  /** The output formats. */
  public enum Format { TABLE, CSV, JSON }

  /**
   * One column.
   *
   * @param header the table heading
   * @param key the CSV heading and JSON field name
   * @param numeric whether the table right-aligns it
   */
  public record Column(String header, String key, boolean numeric) {}

  /** One cell: what the table shows, and the value CSV and JSON carry. */
  public record Cell(String text, Object raw) {
    /** A text cell whose raw value is the same text. */
    public static Cell text(String text) {
      return new Cell(text, text);
    }

    /** A whole number. */
    public static Cell count(long value) {
      return new Cell(Long.toString(value), value);
    }

    /** A number shown with {@code decimals} digits and carried in full. */
    public static Cell number(double value, int decimals) {
      String text = Double.isNaN(value) ? "—" : String.format(Locale.ROOT, "%." + decimals + "f", value);
      return new Cell(text, value);
    }

    /** A fraction shown as a percentage with {@code decimals} digits and carried as the fraction. */
    public static Cell percent(double fraction, int decimals) {
      return new Cell(String.format(Locale.ROOT, "%." + decimals + "f%%", 100 * fraction), fraction);
    }
  }

  private final List<Column> columns;
  private final List<List<Cell>> rows = new ArrayList<>();

  public Table(List<Column> columns) {
    this.columns = List.copyOf(columns);
  }

  /** Adds a row; it must have one cell per column. */
  public Table add(List<Cell> row) {
    if (row.size() != columns.size()) {
      throw new IllegalArgumentException("row has " + row.size() + " cells for " + columns.size() + " columns");
    }
    rows.add(List.copyOf(row));
    return this;
  }

  public List<Column> columns() {
    return columns;
  }

  public List<List<Cell>> rows() {
    return List.copyOf(rows);
  }

  /** Renders in {@code format}; the result ends with a newline. */
  public String render(Format format) {
    return switch (Objects.requireNonNull(format)) {
      case TABLE -> markdown();
      case CSV -> csv();
      case JSON -> json();
    };
  }

  private String markdown() {
    int[] widths = new int[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      widths[c] = Math.max(3, columns.get(c).header().length());
      for (List<Cell> row : rows) {
        widths[c] = Math.max(widths[c], row.get(c).text().length());
      }
    }
    StringBuilder out = new StringBuilder();
    line(out, widths, c -> columns.get(c).header());
    out.append('|');
    for (int c = 0; c < columns.size(); c++) {
      out.append(' ').append("-".repeat(widths[c] - 1)).append(columns.get(c).numeric() ? ':' : '-').append(" |");
    }
    out.append('\n');
    for (List<Cell> row : rows) {
      line(out, widths, c -> row.get(c).text());
    }
    return out.toString();
  }

  private void line(StringBuilder out, int[] widths, java.util.function.IntFunction<String> text) {
    out.append('|');
    for (int c = 0; c < columns.size(); c++) {
      String t = text.apply(c);
      String pad = " ".repeat(widths[c] - t.length());
      out.append(' ').append(columns.get(c).numeric() ? pad + t : t + pad).append(" |");
    }
    out.append('\n');
  }

  private String csv() {
    StringBuilder out = new StringBuilder();
    out.append(String.join(",", columns.stream().map(c -> csvField(c.key())).toList())).append('\n');
    for (List<Cell> row : rows) {
      out.append(String.join(",", row.stream().map(cell -> csvField(raw(cell.raw()))).toList())).append('\n');
    }
    return out.toString();
  }

  private static String raw(Object value) {
    if (value == null) return "";
    if (value instanceof Double d && (d.isNaN() || d.isInfinite())) return "";
    return value.toString();
  }

  private static String csvField(String value) {
    if (value.contains(",") || value.contains("\"") || value.contains("\n")) {
      return '"' + value.replace("\"", "\"\"") + '"';
    }
    return value;
  }

  private String json() {
    StringBuilder out = new StringBuilder("[\n");
    for (int r = 0; r < rows.size(); r++) {
      out.append("  {");
      for (int c = 0; c < columns.size(); c++) {
        if (c > 0) out.append(", ");
        out.append(Json.string(columns.get(c).key())).append(": ").append(Json.value(rows.get(r).get(c).raw()));
      }
      out.append(r + 1 < rows.size() ? "},\n" : "}\n");
    }
    return out.append("]\n").toString();
  }
}
