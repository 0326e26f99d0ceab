package dev.levee.gateway.jobs;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The lines one class logs at INFO and above while open, for tests that count what an operator
 * reads. The tests log through slf4j-simple at WARN to {@code System.err}: this lowers one
 * logger's level and copies {@code System.err} aside, both restored on close. Not for parallel tests.
 */
final class LogLines implements AutoCloseable {

  private static final int INFO = 20; // slf4j-simple's LOG_LEVEL_INFO

  private final Object logger;
  private final Field level;
  private final int levelBefore;
  private final PrintStream errBefore = System.err;
  private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

  private LogLines(Class<?> of) throws ReflectiveOperationException {
    logger = LoggerFactory.getLogger(of);
    level = logger.getClass().getDeclaredField("currentLogLevel");
    level.setAccessible(true);
    levelBefore = level.getInt(logger);
    level.setInt(logger, INFO);
    System.setErr(new PrintStream(copy, true, StandardCharsets.UTF_8));
  }

  /** Starts copying what {@code of}'s logger writes at INFO and above. */
  static LogLines of(Class<?> of) throws ReflectiveOperationException {
    return new LogLines(of);
  }

  /** The lines written so far. */
  List<String> lines() {
    return copy.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Override
  public void close() throws IllegalAccessException {
    System.setErr(errBefore);
    level.setInt(logger, levelBefore);
  }
}
