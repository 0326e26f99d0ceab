package dev.levee.bench;

import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.gateway.cache.CacheKey;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the cache write-back's key costs a request ({@link CacheKey#of(MessagesRequest, String,
 * String, Map)}: a canonical pass over the body and a SHA-256), beside the parse every request gets
 * ({@link MessagesRequest#parse}), for a prompt of {@code kib} KiB of English text. Every answered
 * request at T0 works the key out, for the last-resort cache; since session 25 after its answer is
 * written, so this is the time a JSON answer no longer waits. Microseconds per request; the ratio of
 * the two rows in one run is what to read on a shared box.
 *
 * <p>Run: {@code java -jar levee-bench/target/levee-bench.jar CacheKey}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CacheKeyBenchmark {

  @Param({"1", "100", "1000"})
  public int kib;

  private byte[] body;
  private MessagesRequest request;
  private final Map<String, List<String>> headers = Map.of("anthropic-version", List.of("2023-06-01"));

  @Setup
  public void setUp() throws MessagesRequest.InvalidRequestException {
    String words = "the river rose and the levee held through the night ";
    StringBuilder content = new StringBuilder();
    while (content.length() < kib * 1024) {
      content.append(words);
    }
    body = ("{\"model\":\"m\",\"max_tokens\":256,\"messages\":[{\"role\":\"user\",\"content\":\"" + content + "\"}]}")
        .getBytes(StandardCharsets.UTF_8);
    request = MessagesRequest.parse(body);
  }

  @Benchmark
  public CacheKey key() {
    return CacheKey.of(request, "anonymous", "m", headers);
  }

  @Benchmark
  public MessagesRequest parse() throws MessagesRequest.InvalidRequestException {
    return MessagesRequest.parse(body);
  }
}
