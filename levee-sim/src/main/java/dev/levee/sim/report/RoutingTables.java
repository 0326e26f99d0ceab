package dev.levee.sim.report;

import dev.levee.sim.report.Table.Cell;
import dev.levee.sim.report.Table.Column;
import dev.levee.sim.study.RoutingDayStudy;
import java.util.List;

/** The table of the routing-day study: fixed chain against score routing, per span. */
public final class RoutingTables {

  private RoutingTables() {}

  /** policy | span | requests | loss | p50 | p95 | attempts | cost | opus | sonnet | haiku | fit. */
  public static Table routingDay(List<RoutingDayStudy.Row> rows) {
    Table table = new Table(List.of(
        new Column("policy", "policy", false),
        new Column("span", "span", false),
        new Column("requests", "requests", true),
        new Column("loss", "loss", true),
        new Column("p50 s", "p50_latency_s", true),
        new Column("p95 s", "p95_latency_s", true),
        new Column("attempts/req", "attempts_per_request", true),
        new Column("cost $", "cost_usd", true),
        new Column("opus", "opus_share", true),
        new Column("sonnet", "sonnet_share", true),
        new Column("haiku", "haiku_share", true),
        new Column("task fit", "mean_task_fit", true)));
    for (RoutingDayStudy.Row row : rows) {
      table.add(List.of(Cell.text(row.policy().label()), Cell.text(row.span()), Cell.count(row.requests()),
          Cell.percent(row.loss(), 2), Cell.number(row.p50(), 2), Cell.number(row.p95(), 2),
          Cell.number(row.attempts(), 3), Cell.number(row.cost(), 2),
          Cell.percent(row.share(RoutingDayStudy.OPUS), 1), Cell.percent(row.share(RoutingDayStudy.SONNET), 1),
          Cell.percent(row.share(RoutingDayStudy.HAIKU), 1), Cell.number(row.meanFit(), 3)));
    }
    return table;
  }
}
