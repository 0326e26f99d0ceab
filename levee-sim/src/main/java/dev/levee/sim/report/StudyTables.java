package dev.levee.sim.report;

import dev.levee.sim.RunStats;
import dev.levee.sim.report.Table.Cell;
import dev.levee.sim.report.Table.Column;
import dev.levee.sim.study.OverloadStudy;
import dev.levee.sim.study.RetryBudgetStudy;
import java.util.List;

/** The tables of the two studies, in the published layout. */
public final class StudyTables {

  private StudyTables() {}

  /** policy | calls | retries | denied | amp | loss, as in the published retry-budget table. */
  public static Table retryBudget(List<RetryBudgetStudy.Row> rows) {
    Table table = new Table(List.of(
        new Column("policy", "policy", false),
        new Column("calls", "calls", true),
        new Column("retries", "retries", true),
        new Column("denied", "denied", true),
        new Column("amp", "amplification", true),
        new Column("loss", "loss", true)));
    for (RetryBudgetStudy.Row row : rows) {
      RunStats s = row.stats();
      table.add(List.of(Cell.text(row.policy()), Cell.count(s.calls()), Cell.count(s.retries()),
          Cell.count(s.denied()), Cell.number(s.amplification(), 2), Cell.percent(s.loss(), 1)));
    }
    return table;
  }

  /** policy | loss | amp | recovery | p99 | 529s | local rejects | denied, for the overload study. */
  public static Table overload(List<OverloadStudy.Row> rows) {
    Table table = new Table(List.of(
        new Column("policy", "policy", false),
        new Column("loss", "loss", true),
        new Column("amp", "amplification", true),
        new Column("recovery", "recovery_s", true),
        new Column("p99 latency", "p99_latency_s", true),
        new Column("529s", "overloaded_calls", true),
        new Column("local rejects", "rejected_locally", true),
        new Column("denied", "denied", true)));
    for (OverloadStudy.Row row : rows) {
      RunStats s = row.stats();
      Cell recovery = row.recovered()
          ? new Cell(String.format(java.util.Locale.ROOT, "%.0f s", row.recoverySeconds()), row.recoverySeconds())
          : new Cell("never", null);
      double p99 = s.latency().percentile(0.99);
      table.add(List.of(Cell.text(row.policy()), Cell.percent(s.loss(), 1), Cell.number(s.amplification(), 2),
          recovery, new Cell(Double.isNaN(p99) ? "—" : String.format(java.util.Locale.ROOT, "%.2f s", p99), p99),
          Cell.count(s.failedCalls()), Cell.count(s.rejectedLocally()), Cell.count(s.denied())));
    }
    return table;
  }
}
