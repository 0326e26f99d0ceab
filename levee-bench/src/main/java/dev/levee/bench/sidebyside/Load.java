package dev.levee.bench.sidebyside;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The load generator: {@code wrk} when installed (Debian package {@code wrk}), else the lean
 * {@link LoopbackClient} on platform threads. Either way a fixed number of kept-alive connections
 * sends the same request for a fixed time.
 */
sealed interface Load {

  /** What one run measured: answers per second, answers, non-200 answers or errors, latency percentiles. */
  record Run(double perSecond, long requests, long failures, double p50Micros, double p99Micros) {}

  Run run(URI base, byte[] body, int connections, Duration time) throws Exception;

  String name();

  static Load pick() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      if (Files.isExecutable(Path.of(dir, "wrk"))) {
        return new Wrk(Path.of(dir, "wrk"));
      }
    }
    return new Lean();
  }

  /** wrk 4 with a Lua script that POSTs the body. */
  record Wrk(Path exe) implements Load {

    private static final Pattern PERCENTILE = Pattern.compile("^\\s*(50|99)(?:\\.0+)?%\\s+([0-9.]+)(us|ms|s)\\s*$");

    @Override
    public String name() {
      return "wrk";
    }

    @Override
    public Run run(URI base, byte[] body, int connections, Duration time) throws Exception {
      Path script = Files.createTempFile("side-by-side", ".lua");
      try {
        Files.writeString(script, "wrk.method = \"POST\"\nwrk.body = [==[" + new String(body, StandardCharsets.UTF_8)
            + "]==]\nwrk.headers[\"content-type\"] = \"application/json\"\nwrk.headers[\"x-api-key\"] = \"bench\"\n"
            + "wrk.headers[\"anthropic-version\"] = \"2023-06-01\"\n");
        Process wrk = new ProcessBuilder(exe.toString(), "-t1", "-c" + connections, "-d" + time.toSeconds() + "s",
            "--latency", "-s", script.toString(), base + "/v1/messages").redirectErrorStream(true).start();
        String out = new String(wrk.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!wrk.waitFor(time.toSeconds() + 30, TimeUnit.SECONDS) || wrk.exitValue() != 0) {
          throw new IllegalStateException("wrk failed:\n" + out);
        }
        return parse(out);
      } finally {
        Files.deleteIfExists(script);
      }
    }

    static Run parse(String out) {
      double p50 = Double.NaN;
      double p99 = Double.NaN;
      long requests = 0;
      long failures = 0;
      double perSecond = 0;
      for (String line : out.split("\n")) {
        Matcher m = PERCENTILE.matcher(line);
        if (m.matches()) {
          double v = Double.parseDouble(m.group(2)) * switch (m.group(3)) {
            case "us" -> 1;
            case "ms" -> 1e3;
            default -> 1e6;
          };
          if (m.group(1).equals("50")) {
            p50 = v;
          } else {
            p99 = v;
          }
        } else if (line.contains(" requests in ")) {
          requests = Long.parseLong(line.trim().split(" ")[0]);
        } else if (line.contains("Non-2xx or 3xx responses:")) {
          failures += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
        } else if (line.trim().startsWith("Socket errors:")) {
          for (Matcher n = Pattern.compile("(\\d+)").matcher(line); n.find(); ) {
            failures += Long.parseLong(n.group(1));
          }
        } else if (line.startsWith("Requests/sec:")) {
          perSecond = Double.parseDouble(line.substring(13).trim());
        }
      }
      return new Run(perSecond, requests, failures, p50, p99);
    }
  }

  /** The lean loopback client, one platform thread per connection. */
  record Lean() implements Load {

    @Override
    public String name() {
      return "lean loopback client (wrk not installed)";
    }

    @Override
    public Run run(URI base, byte[] body, int connections, Duration time) throws Exception {
      long end = System.nanoTime() + time.toNanos();
      List<long[]> perThread = new ArrayList<>();
      long[] counts = new long[connections * 2];
      List<Thread> threads = new ArrayList<>();
      long start = System.nanoTime();
      for (int c = 0; c < connections; c++) {
        int me = c;
        long[][] mine = {new long[1024]};
        perThread.add(null);
        threads.add(Thread.ofPlatform().start(() -> {
          int n = 0;
          try (LoopbackClient client = new LoopbackClient(base, body)) {
            while (System.nanoTime() < end) {
              long t = System.nanoTime();
              LoopbackClient.Answer a = client.exchange();
              if (n == mine[0].length) {
                mine[0] = Arrays.copyOf(mine[0], n * 2);
              }
              mine[0][n++] = System.nanoTime() - t;
              if (a.status() != 200) {
                counts[me * 2 + 1]++;
              }
            }
          } catch (IOException e) {
            counts[me * 2 + 1]++;
          }
          counts[me * 2] = n;
          synchronized (perThread) {
            perThread.set(me, Arrays.copyOf(mine[0], n));
          }
        }));
      }
      for (Thread t : threads) {
        t.join();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long[] all = perThread.stream().flatMapToLong(Arrays::stream).sorted().toArray();
      long failures = 0;
      for (int c = 0; c < connections; c++) {
        failures += counts[c * 2 + 1];
      }
      return new Run(all.length / seconds, all.length, failures,
          all.length == 0 ? Double.NaN : all[all.length / 2] / 1e3, all.length == 0 ? Double.NaN : all[all.length * 99 / 100] / 1e3);
    }
  }

  static String micros(double v) {
    return String.format(Locale.ROOT, "%.0f µs", v);
  }
}
