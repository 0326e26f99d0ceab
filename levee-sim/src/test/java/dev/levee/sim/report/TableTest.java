package dev.levee.sim.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.sim.report.Table.Cell;
import dev.levee.sim.report.Table.Column;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableTest {

  private final Table table = new Table(List.of(new Column("policy", "policy", false), new Column("loss", "loss", true)))
      .add(List.of(Cell.text("a, \"b\""), Cell.percent(0.074, 1)))
      .add(List.of(Cell.text("c"), new Cell("never", null)));

  @Test
  void rendersAnAlignedMarkdownTable() {
    assertThat(table.render(Table.Format.TABLE)).isEqualTo("""
        | policy |  loss |
        | ------ | ----: |
        | a, "b" |  7.4% |
        | c      | never |
        """);
  }

  @Test
  void csvQuotesWhatNeedsQuotingAndCarriesRawValues() {
    assertThat(table.render(Table.Format.CSV)).isEqualTo("""
        policy,loss
        "a, ""b""\",0.074
        c,
        """);
  }

  @Test
  void jsonEscapesStringsAndWritesMissingValuesAsNull() {
    assertThat(table.render(Table.Format.JSON)).isEqualTo("""
        [
          {"policy": "a, \\"b\\"", "loss": 0.074},
          {"policy": "c", "loss": null}
        ]
        """);
  }
}
