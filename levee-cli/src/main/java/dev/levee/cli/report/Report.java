package dev.levee.cli.report;

import java.util.List;

/**
 * What a report shows, before it is rendered ({@link HtmlReport}): a title, a lead paragraph, the
 * checks with their measured values, summary tables and sections of charts. Shared by {@code levee
 * drill} and {@code levee demo --report}.
 *
 * @param title the page's title and first heading, e.g. {@code Levee drill: passed}
 * @param lead one paragraph saying what was run
 * @param checks the assertions, in order (may be empty)
 * @param tables summary tables (may be empty)
 * @param sections headed groups of charts
 * @param warnings what makes the figures doubtful, shown under the lead (may be empty), e.g. that
 *     the machine was starved of CPU
 */
public record Report(String title, String lead, List<Check> checks, List<Table> tables, List<Section> sections,
    List<String> warnings) {

  public Report {
    checks = List.copyOf(checks);
    tables = List.copyOf(tables);
    sections = List.copyOf(sections);
    warnings = List.copyOf(warnings);
  }

  /** A report with no warnings. */
  public Report(String title, String lead, List<Check> checks, List<Table> tables, List<Section> sections) {
    this(title, lead, checks, tables, sections, List.of());
  }

  /** Whether every check passed (true when there are none). */
  public boolean passed() {
    return checks.stream().allMatch(Check::passed);
  }

  /**
   * One assertion and what was measured.
   *
   * @param name what is asserted, e.g. {@code tier at T2 or below after the storm starts}
   * @param bound the bound, e.g. {@code <= 60 s}
   * @param measured the measured value as shown, e.g. {@code 15 s}
   * @param passed whether the measured value is within the bound
   */
  public record Check(String name, String bound, String measured, boolean passed) {}

  /** A table: its caption, column headings and rows of cells (each row as long as the header). */
  public record Table(String caption, List<String> header, List<List<String>> rows) {

    public Table {
      header = List.copyOf(header);
      rows = rows.stream().map(List::copyOf).toList();
    }
  }

  /** A heading, a note under it (may be empty) and its charts. */
  public record Section(String heading, String note, List<Chart> charts) {

    public Section {
      charts = List.copyOf(charts);
    }
  }
}
