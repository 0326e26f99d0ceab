package dev.levee.bench.sidebyside;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What {@link Soak} measures in the gateway's process, from outside it: the heap in use after a
 * full collection (the total of {@code jcmd <pid> GC.class_histogram}, which collects first), its threads — platform
 * ones from {@code /proc/<pid>/status}, virtual ones from a JSON thread dump ({@code
 * Thread.dump_to_file}, which lists every virtual thread the JDK tracks) — its open files
 * ({@code /proc/<pid>/fd}), resident memory, the lines of {@code /metrics} that are series, and the
 * size of its job store on disk. Also class histograms ({@code GC.class_histogram}) and thread
 * groups, for finding what grew. Linux only; {@code jcmd} from this JVM's JDK.
 */
final class SoakProbe {

  /**
   * One reading.
   *
   * @param heapMiB live heap after a full GC, MiB
   * @param threads the process's platform threads (the JVM's own included)
   * @param virtualThreads virtual threads alive (the requests in flight among them)
   * @param series lines of {@code /metrics} that are a series (not a comment)
   * @param storeMiB the job store's folder on disk (idempotency keys are kept 24 h there), MiB
   */
  record Sample(double minutes, double heapMiB, int threads, int virtualThreads, int fds, double rssMiB, int series,
      double storeMiB) {}

  private double maxHeapMiB = Double.NaN;

  private static final Pattern TOTAL = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)");
  private static final Pattern RESERVED = Pattern.compile("total reserved (\\d+)K");
  private static final Pattern HISTOGRAM_ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final long pid;
  private final URI base;
  private final Path store;
  private final Path out;
  private final String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();

  /**
   * @param store the gateway's job store folder
   * @param out where histograms and thread dumps are written
   */
  SoakProbe(long pid, URI base, Path store, Path out) {
    this.pid = pid;
    this.base = base;
    this.store = store;
    this.out = out;
  }

  Sample take(double minutes) throws IOException, InterruptedException {
    if (Double.isNaN(maxHeapMiB)) {
      Matcher reserved = RESERVED.matcher(jcmd("GC.heap_info"));
      if (reserved.find()) {
        maxHeapMiB = Long.parseLong(reserved.group(1)) / 1024.0;
      }
    }
    // the live bytes the histogram counts right after its full GC: GC.heap_info's "used" after a
    // GC.run also counts what the traffic allocated while the second jcmd started (~1 s, tens of MiB)
    Matcher total = TOTAL.matcher(jcmd("GC.class_histogram"));
    double heap = total.find() ? Long.parseLong(total.group(1)) / 1048576.0 : Double.NaN;
    Map<String, Integer> groups = threadGroups("threads-latest.json");
    int virtual = groups.entrySet().stream().filter(e -> e.getKey().startsWith("virtual"))
        .mapToInt(Map.Entry::getValue).sum();
    return new Sample(minutes, heap, (int) ManyStreams.status(pid, "Threads:"), virtual, openFiles(),
        ManyStreams.status(pid, "VmRSS:") / 1024.0, series(), directoryBytes(store) / 1048576.0);
  }

  /** The heap's maximum (G1's reserved heap, {@code -Xmx}), MiB, as the last reading saw it; NaN before. */
  double maxHeapMiB() {
    return maxHeapMiB;
  }

  /** {@code GC.class_histogram} (a full GC first), saved as {@code histogram-<name>.txt}: bytes and instances per class. */
  Map<String, long[]> histogram(String name) throws IOException, InterruptedException {
    String text = jcmd("GC.class_histogram");
    Files.writeString(out.resolve("histogram-" + name + ".txt"), text);
    Map<String, long[]> byClass = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      Matcher m = HISTOGRAM_ROW.matcher(line);
      if (m.find()) {
        byClass.put(m.group(3), new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
      }
    }
    return byClass;
  }

  /**
   * A JSON thread dump saved as {@code file}, its threads counted by group: a platform thread by
   * its name with digits as {@code #}, a virtual thread by the innermost Levee (or Jetty) frame of
   * its stack — where it waits.
   */
  Map<String, Integer> threadGroups(String file) throws IOException, InterruptedException {
    Path dump = out.resolve(file);
    jcmd("Thread.dump_to_file", "-format=json", "-overwrite", dump.toString());
    Map<String, Integer> groups = new TreeMap<>();
    JsonNode containers = JSON.readTree(dump.toFile()).path("threadDump").path("threadContainers");
    for (JsonNode container : containers) {
      for (JsonNode thread : container.path("threads")) {
        boolean virtual = thread.path("virtual").asBoolean(false);
        String key;
        if (virtual) {
          String where = "?";
          for (JsonNode frame : thread.path("stack")) {
            String f = frame.asText();
            if (f.contains("dev.levee") || f.contains("org.eclipse.jetty")) {
              where = f.replaceAll("\\(.*", "");
              break;
            }
          }
          key = "virtual @ " + where;
        } else {
          key = "platform " + thread.path("name").asText().replaceAll("\\d+", "#");
        }
        groups.merge(key, 1, Integer::sum);
      }
    }
    return groups;
  }

  private int series() throws IOException {
    return seriesNames().size();
  }

  /** The series of {@code /metrics}: each line that is not a comment, without its value. */
  Set<String> seriesNames() throws IOException {
    try (SoakConnection c = new SoakConnection(base, false)) {
      String text = c.exchange(SoakConnection.request("GET", "/metrics", Map.of("connection", "close"), null),
          SoakConnection.Reading.WHOLE).text();
      Set<String> series = new TreeSet<>();
      for (String line : text.split("\n")) {
        if (!line.isBlank() && !line.startsWith("#")) {
          series.add(line.substring(0, line.lastIndexOf(' ')));
        }
      }
      return series;
    }
  }

  private int openFiles() throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      return (int) fds.count();
    }
  }

  private static long directoryBytes(Path folder) throws IOException {
    if (!Files.isDirectory(folder)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(folder)) {
      return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
  }

  private String jcmd(String... command) throws IOException, InterruptedException {
    String[] line = new String[command.length + 2];
    line[0] = jcmd;
    line[1] = Long.toString(pid);
    System.arraycopy(command, 0, line, 2, command.length);
    Process p = new ProcessBuilder(line).redirectErrorStream(true).start();
    byte[] text = p.getInputStream().readAllBytes();
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("jcmd " + String.join(" ", command) + " failed: " + new String(text, StandardCharsets.UTF_8));
    }
    return new String(text, StandardCharsets.UTF_8);
  }
}
