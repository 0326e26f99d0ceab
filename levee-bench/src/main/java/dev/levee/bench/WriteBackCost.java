package dev.levee.bench;

import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.ResponseCache;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the stale-if-error write-back costs each answered request while the cache is on (its
 * default), in CPU time of the measuring thread — a figure a loaded box moves far less than wall
 * time: the side-by-side's request keyed ({@link CacheKey}: canonical JSON and SHA-256), and the
 * key plus the put of its answer when an entry stored less than a second ago stays ({@code kept}:
 * a prompt repeated within the second, every request of the side-by-side). Best of 20 rounds of
 * 200,000 after 5 rounds of warm-up; the cache reads the system's clock, as the gateway's does.
 * A benchmark, not a test: compare two builds by running each (old and new {@code lib/}).
 *
 * <p>Run: {@code levee-bench/run WriteBackCost}.
 */
public final class WriteBackCost {

  private static final int PER_ROUND = 200_000;
  private static final byte[] ANSWER = ("{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
      + "\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
      + "\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}").getBytes(StandardCharsets.UTF_8);

  private WriteBackCost() {}

  public static void main(String[] args) throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<String, List<String>> headers = Map.of("content-type", List.of("application/json"),
        "anthropic-version", List.of("2023-06-01"), "host", List.of("127.0.0.1"));
    MessagesRequest request = MessagesRequest.parse(("{\"model\":\"fast\",\"max_tokens\":64,\"stream\":false,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"How does a levee work?\"}]}").getBytes(StandardCharsets.UTF_8));
    ResponseCache cache = new ResponseCache(ResponseCache.Config.DEFAULT, System::nanoTime);
    Duration ttl = Duration.ofMinutes(5);
    long sink = 0;
    double key = Double.MAX_VALUE;
    double kept = Double.MAX_VALUE;
    for (int round = 0; round < 25; round++) {
      long t0 = threads.getCurrentThreadCpuTime();
      for (int i = 0; i < PER_ROUND; i++) {
        sink += CacheKey.of(request, "anonymous", "fast", headers).digest().length();
      }
      long t1 = threads.getCurrentThreadCpuTime();
      for (int i = 0; i < PER_ROUND; i++) {
        sink += cache.putFinished(CacheKey.of(request, "anonymous", "fast", headers), ANSWER, "claude-fast", ttl) ? 1 : 0;
      }
      long t2 = threads.getCurrentThreadCpuTime();
      if (round >= 5) {
        key = Math.min(key, (t1 - t0) / (double) PER_ROUND);
        kept = Math.min(kept, (t2 - t1) / (double) PER_ROUND);
      }
    }
    System.out.printf(Locale.ROOT, "write-back, thread CPU per request, best of 20 rounds of %,d (checksum %d)%n",
        PER_ROUND, sink % 7);
    System.out.printf(Locale.ROOT, "  the key:                   %6.0f ns%n", key);
    System.out.printf(Locale.ROOT, "  the key and a kept put:    %6.0f ns (the put %.0f ns)%n", kept, kept - key);
  }
}
