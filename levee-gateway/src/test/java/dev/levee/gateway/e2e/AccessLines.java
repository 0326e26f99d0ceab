package dev.levee.gateway.e2e;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.slf4j.LoggerFactory;

/**
 * The {@code levee.access} lines written while open: its slf4j-simple level lowered to INFO and
 * {@code System.err} copied aside, both restored on close (as {@code jobs.LogLines}; not for
 * parallel tests). Each line is written just after its answer went out, on the server's thread, so
 * wait for the lines asserted on.
 */
final class AccessLines implements AutoCloseable {

  private static final int INFO = 20; // slf4j-simple's LOG_LEVEL_INFO

  private final Object logger = LoggerFactory.getLogger("levee.access");
  private final Field level;
  private final int levelBefore;
  private final PrintStream errBefore = System.err;
  private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

  AccessLines() throws ReflectiveOperationException {
    level = logger.getClass().getDeclaredField("currentLogLevel");
    level.setAccessible(true);
    levelBefore = level.getInt(logger);
    level.setInt(logger, INFO);
    System.setErr(new PrintStream(copy, true, StandardCharsets.UTF_8));
  }

  /** The access lines once one names each of {@code ids}, or as they are after 10 s. */
  List<String> await(Iterable<String> ids) {
    return await(lines -> namesEach(lines, ids));
  }

  /** The access lines once one contains {@code text}, or as they are after 10 s. */
  List<String> awaitContaining(String text) {
    return await(lines -> lines.stream().anyMatch(line -> line.contains(text)));
  }

  private List<String> await(Predicate<List<String>> ready) {
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    List<String> lines = lines();
    while (!ready.test(lines) && System.nanoTime() < until) {
      LockSupport.parkNanos(Duration.ofMillis(15).toNanos()); // not a busy spin: lines come once per request
      lines = lines();
    }
    return lines;
  }

  private static boolean namesEach(List<String> lines, Iterable<String> ids) {
    for (String id : ids) {
      if (lines.stream().noneMatch(line -> line.contains(" - " + id + " "))) {
        return false;
      }
    }
    return true;
  }

  /** The access lines written so far. */
  List<String> lines() {
    return copy.toString(StandardCharsets.UTF_8).lines().filter(line -> line.contains(" levee.access - ")).toList();
  }

  @Override
  public void close() throws IllegalAccessException {
    System.setErr(errBefore);
    level.setInt(logger, levelBefore);
  }
}
