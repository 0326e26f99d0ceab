package dev.levee.bench.sidebyside;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU time of a process and its children from {@code /proc/<pid>/stat} (utime + stime, in clock
 * ticks of 10 ms), and resident memory from {@code /proc/<pid>/status}. Linux only.
 */
final class ProcCpu {

  private static final double TICK_SECONDS = 0.01; // USER_HZ is 100 on every Linux we run on

  private ProcCpu() {}

  /** The box's load average over 1, 5 and 15 minutes, as {@code /proc/loadavg} gives it; "?" when unreadable. */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }

  /** CPU seconds used so far by {@code pid} and its direct children (nginx's workers). */
  static double seconds(long pid) {
    double total = 0;
    for (long p : withChildren(pid)) {
      total += own(p);
    }
    return total;
  }

  /** Resident set size of {@code pid} and its children, in MiB. */
  static double rssMiB(long pid) {
    double kib = 0;
    for (long p : withChildren(pid)) {
      try {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(p), "status"))) {
          if (line.startsWith("VmRSS:")) {
            kib += Long.parseLong(line.replaceAll("[^0-9]", ""));
          }
        }
      } catch (IOException e) {
        // gone
      }
    }
    return kib / 1024;
  }

  private static List<Long> withChildren(long pid) {
    List<Long> all = new ArrayList<>(List.of(pid));
    try {
      String children = Files.readString(Path.of("/proc", Long.toString(pid), "task", Long.toString(pid), "children")).trim();
      for (String c : children.isEmpty() ? new String[0] : children.split("\\s+")) {
        all.add(Long.parseLong(c));
      }
    } catch (IOException e) {
      // no children file: the process alone
    }
    return all;
  }

  private static double own(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * TICK_SECONDS;
    } catch (IOException e) {
      return 0;
    }
  }
}
