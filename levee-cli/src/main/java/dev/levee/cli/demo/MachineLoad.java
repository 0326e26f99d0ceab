package dev.levee.cli.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The machine's 1-minute load average and its cores, as the demo reads them at its start and end.
 * The demo measures time (attempt timeouts of 5 s, a 10 s deadline, backoffs of 100 ms to 1 s, a
 * breaker open for 4 s, SDK timeouts of 30 s) on threads that need a CPU to run: on a starved
 * machine its figures measure the CPU's queue, not the incident (newcomer trial, session 12: at a
 * load of 20 on 2 cores the demo showed Levee losing 93.5% of its requests and the baseline 49%).
 *
 * @param oneMinute the first field of {@code /proc/loadavg}: runnable (and uninterruptible) tasks,
 *     averaged over the last minute
 * @param cores the processors this JVM may use ({@link Runtime#availableProcessors()})
 */
record MachineLoad(double oneMinute, int cores) {

  /**
   * Load per core above which the demo's figures are unreliable: 2. At 1 every core is busy; at 2
   * a runnable thread gets half a core on average, so every step of a request (parsing, the
   * emulator's answer, the SDK client reading it) takes at least twice as long as on an idle
   * machine and the timeouts and breaker windows above start to fire on CPU queueing. The end
   * reading includes the demo's own threads (two gateways, two emulators and the SDK clients in
   * one JVM), which alone stay well under one per core on a 2-core machine at the default load,
   * so an otherwise quiet machine does not trip the warning.
   */
  static final double STARVED_PER_CORE = 2.0;

  /** Where Linux publishes the load average. */
  static final Path PROC_LOADAVG = Path.of("/proc/loadavg");

  /** The load now, or null where {@code /proc/loadavg} cannot be read (not Linux, a sandbox). */
  static MachineLoad now() {
    try {
      return parse(Files.readString(PROC_LOADAVG), Runtime.getRuntime().availableProcessors());
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * A reading from the text of {@code /proc/loadavg} ({@code "19.86 19.09 17.28 21/1034 5521"}).
   *
   * @throws NumberFormatException when the first field is not a number
   */
  static MachineLoad parse(String loadavg, int cores) {
    return new MachineLoad(Double.parseDouble(loadavg.trim().split("\\s+", 2)[0]), cores);
  }

  /** Runnable tasks per core. */
  double perCore() {
    return oneMinute / Math.max(1, cores);
  }

  /** Whether the load per core is above {@link #STARVED_PER_CORE}. */
  boolean starved() {
    return perCore() > STARVED_PER_CORE;
  }

  /** E.g. {@code load average 19.86 (1 min) on 2 cores, 9.93 per core}; {@code unknown} for null. */
  static String describe(MachineLoad load) {
    return load == null ? "load average unknown (no /proc/loadavg)"
        : String.format(Locale.ROOT, "load average %.2f (1 min) on %d cores, %.2f per core", load.oneMinute,
            load.cores, load.perCore());
  }

  /**
   * The warning for the summary when either reading was starved, else null (also when neither
   * could be read: nothing is known).
   */
  static String warning(MachineLoad start, MachineLoad end) {
    boolean starved = start != null && start.starved() || end != null && end.starved();
    if (!starved) {
      return null;
    }
    return String.format(Locale.ROOT, "WARNING: this machine was starved of CPU (load per core above %.1f: %s at the "
            + "start, %s at the end), so the demo's figures are unreliable: timeouts, backoffs and the breaker measured "
            + "the CPU's queue, not the incident. Run the demo again on a quieter machine.", STARVED_PER_CORE,
        perCore(start), perCore(end));
  }

  private static String perCore(MachineLoad load) {
    return load == null ? "unknown" : String.format(Locale.ROOT, "%.2f", load.perCore());
  }
}
