package dev.levee.cli;

import picocli.CommandLine;

/** Reads a TCP port, 0 (any free port) to 65535; anything else is a usage error (exit code 2). */
final class PortConverter implements CommandLine.ITypeConverter<Integer> {

  @Override
  public Integer convert(String value) {
    int port;
    try {
      port = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new CommandLine.TypeConversionException("'" + value + "' is not a port (0 to 65535)");
    }
    if (port < 0 || port > 65535) {
      throw new CommandLine.TypeConversionException("'" + value + "' is not a port (0 to 65535)");
    }
    return port;
  }
}
