package dev.levee.cli.simulate;

import dev.levee.sim.report.Table;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads {@code --format table|csv|json}, in any case. */
final class FormatConverter implements ITypeConverter<Table.Format> {

  @Override
  public Table.Format convert(String value) {
    try {
      return Table.Format.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException("expected table, csv or json, not '" + value + "'");
    }
  }
}
