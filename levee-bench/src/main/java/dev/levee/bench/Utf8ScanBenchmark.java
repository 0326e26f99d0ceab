package dev.levee.bench;

import dev.levee.anthropic.Utf8;
import dev.levee.anthropic.message.MessagesRequest;
import java.nio.charset.StandardCharsets;
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
 * What the UTF-8 check of every request body costs ({@link Utf8#firstMalformed}), against the
 * parse it is part of ({@link MessagesRequest#parse}, which now includes it), on a 1 KiB Messages
 * body: {@code ascii} (English text), or {@code mixed} (about one character in four takes two to
 * four bytes: accented Latin, CJK, emoji). Time per body, so per KiB; the ratio of the two rows in
 * one run says what share of the parse the scan is.
 *
 * <p>Run: {@code java -jar levee-bench/target/levee-bench.jar Utf8Scan}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class Utf8ScanBenchmark {

  /** The bytes of a body. */
  private static final int BODY_BYTES = 1024;

  @Param({"ascii", "mixed"})
  public String text;

  private byte[] body;

  @Setup
  public void setUp() {
    String words = text.equals("ascii") ? "the river rose and the levee held through the night "
        : "la digue a tenu, 堤防は持ちこたえた 🌊 déjà vu ";
    String head = "{\"model\":\"m\",\"max_tokens\":256,\"messages\":[{\"role\":\"user\",\"content\":\"";
    String tail = "\"}]}";
    StringBuilder content = new StringBuilder();
    while ((head + content + words + tail).getBytes(StandardCharsets.UTF_8).length <= BODY_BYTES) {
      content.append(words);
    }
    byte[] base = (head + content + tail).getBytes(StandardCharsets.UTF_8);
    int pad = BODY_BYTES - base.length; // spaces after the object: still one JSON object, exactly 1 KiB
    body = (head + content + tail + " ".repeat(pad)).getBytes(StandardCharsets.UTF_8);
    if (body.length != BODY_BYTES || Utf8.firstMalformed(body, 0, body.length) != -1) {
      throw new IllegalStateException("the body is not 1 KiB of UTF-8");
    }
  }

  @Benchmark
  public int scan() {
    return Utf8.firstMalformed(body, 0, body.length);
  }

  @Benchmark
  public MessagesRequest parse() throws MessagesRequest.InvalidRequestException {
    return MessagesRequest.parse(body);
  }
}
