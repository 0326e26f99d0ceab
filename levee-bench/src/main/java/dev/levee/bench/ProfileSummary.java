package dev.levee.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a process's CPU went, from a JFR recording: the share of samples per method, as the top
 * frame (self) and anywhere on the stack (inclusive, once per sample).
 *
 * <p>Reads {@code jdk.CPUTimeSample} (JDK 25+ on Linux: samples by CPU time, kernel time included,
 * so a system call's cost shows under its native method) when the recording has it, else {@code
 * jdk.ExecutionSample} (Java code only). Record Levee in the side-by-side with {@code --levee-jvm
 * "-Xmx256m -XX:StartFlightRecording=filename=/tmp/levee.jfr,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=1ms"}.
 *
 * <pre>levee-bench/run ProfileSummary /tmp/levee.jfr [--top 40] [--under dev.levee]</pre>
 *
 * <p>{@code --under} limits the inclusive table to methods whose class starts with the prefix
 * (default {@code dev.levee}); shares are always of all samples.
 */
public final class ProfileSummary {

  private ProfileSummary() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      System.err.println("usage: ProfileSummary <recording.jfr> [--top 40] [--under dev.levee]");
      System.exit(2);
    }
    int top = 40;
    String under = "dev.levee";
    for (int i = 1; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--top" -> top = Integer.parseInt(args[i + 1]);
        case "--under" -> under = args[i + 1];
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Path file = Path.of(args[0]);
    String event = has(file, "jdk.CPUTimeSample") ? "jdk.CPUTimeSample" : "jdk.ExecutionSample";
    Map<String, Integer> self = new HashMap<>();
    Map<String, Integer> inclusive = new HashMap<>();
    int samples = 0;
    int nativeTop = 0;
    try (RecordingFile recording = new RecordingFile(file)) {
      while (recording.hasMoreEvents()) {
        RecordedEvent e = recording.readEvent();
        if (!e.getEventType().getName().equals(event) || e.getStackTrace() == null) {
          continue;
        }
        List<RecordedFrame> frames = e.getStackTrace().getFrames();
        if (frames.isEmpty()) {
          continue;
        }
        samples++;
        RecordedFrame leaf = frames.getFirst();
        if ("Native".equals(leaf.getType())) {
          nativeTop++;
        }
        self.merge(name(leaf.getMethod()), 1, Integer::sum);
        Set<String> seen = new HashSet<>();
        for (RecordedFrame f : frames) {
          String name = name(f.getMethod());
          if (name.startsWith(under) && seen.add(name)) {
            inclusive.merge(name, 1, Integer::sum);
          }
        }
      }
    }
    System.out.printf(Locale.ROOT, "%s: %d samples of %s; %.1f %% with a native method on top (system calls, mostly)%n",
        file, samples, event, percent(nativeTop, samples));
    print("self (top frame)", self, samples, top);
    print("inclusive, methods of " + under + "*", inclusive, samples, top);
  }

  private static boolean has(Path file, String event) throws IOException {
    try (RecordingFile recording = new RecordingFile(file)) {
      return recording.readEventTypes().stream().anyMatch(t -> t.getName().equals(event));
    }
  }

  private static String name(RecordedMethod m) {
    return m.getType().getName() + "." + m.getName();
  }

  private static void print(String title, Map<String, Integer> counts, int samples, int top) {
    System.out.printf("%n| %% of samples | %s |%n| ---: | --- |%n", title);
    counts.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .limit(top)
        .forEach(c -> System.out.printf(Locale.ROOT, "| %.1f | %s |%n", percent(c.getValue(), samples), c.getKey()));
  }

  private static double percent(int n, int of) {
    return of == 0 ? 0 : 100.0 * n / of;
  }
}
