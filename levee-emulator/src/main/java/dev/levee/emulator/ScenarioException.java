package dev.levee.emulator;

/**
 * A scenario file that cannot be used. The message reads {@code <source>:<line>: <key>:
 * <problem>}, e.g. {@code incident.yaml:7: phases[1].status: must be one of 200, 429, 500, 503,
 * 529, was 404}.
 */
public final class ScenarioException extends IllegalArgumentException {

  private final String source;
  private final int line;
  private final String key;

  ScenarioException(String source, int line, String key, String problem) {
    super(source + ":" + line + ": " + (key == null ? "" : key + ": ") + problem);
    this.source = source;
    this.line = line;
    this.key = key;
  }

  /** The name of the scenario's source (usually its file name). */
  public String source() {
    return source;
  }

  /** The 1-based line of the problem. */
  public int line() {
    return line;
  }

  /** The key at fault, as a path like {@code phases[1].status}; null for a syntax error. */
  public String key() {
    return key;
  }
}
