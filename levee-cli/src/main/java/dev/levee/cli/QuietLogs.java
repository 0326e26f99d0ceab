package dev.levee.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/** For commands that print their own timeline: no access log, and only errors from Levee's loggers. */
public final class QuietLogs {

  private QuietLogs() {}

  public static void apply() {
    ((Logger) LoggerFactory.getLogger("levee.access")).setLevel(Level.OFF);
    ((Logger) LoggerFactory.getLogger("dev.levee")).setLevel(Level.ERROR);
  }
}
