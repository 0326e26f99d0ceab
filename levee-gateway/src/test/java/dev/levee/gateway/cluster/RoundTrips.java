package dev.levee.gateway.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Counts the commands clients send the real Redis about one test cluster's keys (and its channel),
 * through {@code MONITOR}: a command a script runs inside Redis is not a round trip and is not
 * counted. Other engineers' commands on the shared Redis name other prefixes and are ignored.
 */
final class RoundTrips implements AutoCloseable {

  private final String prefix;
  private final Socket monitor;
  private final List<String> lines = new CopyOnWriteArrayList<>();

  RoundTrips(RedisFixture redis) throws IOException {
    this.prefix = redis.config.prefix();
    this.monitor = new Socket(InetAddress.getLoopbackAddress(), 6379);
    monitor.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
    BufferedReader in = new BufferedReader(new InputStreamReader(monitor.getInputStream(), StandardCharsets.UTF_8));
    if (!"+OK".equals(in.readLine())) {
      throw new IllegalStateException("MONITOR refused");
    }
    Thread.ofVirtual().start(() -> {
      try {
        for (String line; (line = in.readLine()) != null; ) {
          lines.add(line);
        }
      } catch (IOException closed) {
        // close()
      }
    });
  }

  /** The commands about this cluster that {@code action} sent, each one round trip, as MONITOR printed them. */
  List<String> of(ThrowingRunnable action) throws Exception {
    lines.clear();
    action.run();
    String marker = prefix + "marker-" + UUID.randomUUID();
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), 6379)) { // ordered after action's commands
      s.getOutputStream().write(("ECHO " + marker + "\r\n").getBytes(StandardCharsets.US_ASCII));
      s.getInputStream().read();
    }
    if (!RedisFixture.eventually(Duration.ofSeconds(5), () -> lines.stream().anyMatch(l -> l.contains(marker)))) {
      throw new IllegalStateException("MONITOR did not print the marker");
    }
    return lines.stream()
        .takeWhile(l -> !l.contains(marker))
        .filter(l -> l.contains(prefix) && !l.contains(" lua]"))
        .toList();
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Override
  public void close() {
    try {
      monitor.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
