package dev.levee.anthropic.stream;

import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseReader;
import dev.levee.anthropic.sse.SseWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The stream hot path, as {@code Relay} runs it for one client stream: read an upstream stream of
 * {@code events} events ({@link SseReader}; 2,000, or 35 — the side-by-side's 30 deltas and the
 * events around them), splice each event ({@link StreamSplicer}), write what the client gets
 * ({@link SseWriter}, flushing when no whole event is at hand — the end of an upstream read) and
 * assemble the message for the cache ({@link MessageAssembler}). The upstream arrives in reads of
 * {@code readBytes} bytes. Reports the time per stream and, as a counter, the socket writes per
 * stream (at most one per upstream read). With {@code -prof gc}, {@code gc.alloc.rate.norm} at 35
 * events is what this path allocates per side-by-side stream, a figure the box's load does not move.
 *
 * <p>In the {@code stream} package to reach the package-private splicer; lives in levee-bench so
 * that nothing here runs in {@code mvn verify}. Run: {@code java -jar levee-bench/target/levee-bench.jar
 * StreamHotPath}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StreamHotPathBenchmark {

  @Param({"2000", "35"})
  public int events;

  @Param({"4096"})
  public int readBytes;

  private byte[] upstream;

  /** Streams, socket writes and upstream reads in each iteration (writes per stream = writes / streams). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Io {
    public long streams;
    public long writes;
    public long reads;

    @Setup(Level.Iteration)
    public void clear() {
      streams = 0;
      writes = 0;
      reads = 0;
    }
  }

  @Setup
  public void setUp() {
    StringBuilder s = new StringBuilder();
    event(s, "message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01XFDUDYJgAACzvnptvVoYEL\","
        + "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-opus-4-6\",\"content\":[],\"stop_reason\":null,"
        + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}");
    event(s, "content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
    for (int i = 0; i < events - 5; i++) {
      event(s, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
          + "\"text\":\"word" + i + " and\"}}");
    }
    event(s, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
    event(s, "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
        + "\"usage\":{\"output_tokens\":" + (events - 5) + "}}");
    event(s, "message_stop", "{\"type\":\"message_stop\"}");
    upstream = s.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Benchmark
  public int spliceAssembleWrite(Io io) throws Exception {
    Reads in = new Reads(upstream, readBytes);
    Writes out = new Writes();
    SseReader reader = new SseReader(in);
    StreamSplicer splicer = new StreamSplicer(false, -1);
    MessageAssembler assembler = new MessageAssembler();
    SseWriter writer = new SseWriter(out);
    SseEvent event;
    while ((event = reader.next()) != null) {
      List<SseEvent> send = splicer.accept(event);
      for (int i = 0; i < send.size(); i++) {
        SseEvent e = send.get(i);
        writer.write(e, i == send.size() - 1 && !reader.ready()); // as Relay: flush before waiting
        assembler.accept(e);
      }
    }
    io.streams++;
    io.writes += out.writes;
    io.reads += in.reads;
    return assembler.message().length + out.bytes;
  }

  private static void event(StringBuilder s, String name, String data) {
    s.append("event: ").append(name).append("\ndata: ").append(data).append("\n\n");
  }

  /** The upstream body, delivered in reads of at most {@code size} bytes; nothing available between them. */
  static final class Reads extends InputStream {
    private final byte[] bytes;
    private final int size;
    private int position;
    private int readEnd; // the end of the current upstream read
    long reads;

    Reads(byte[] bytes, int size) {
      this.bytes = bytes;
      this.size = size;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (position == bytes.length) {
        return -1;
      }
      if (position == readEnd) {
        readEnd = Math.min(bytes.length, position + size);
        reads++;
      }
      int n = Math.min(len, readEnd - position);
      System.arraycopy(bytes, position, b, off, n);
      position += n;
      return n;
    }

    @Override
    public int read() {
      throw new UnsupportedOperationException();
    }

    @Override
    public int available() {
      return readEnd - position;
    }
  }

  /** Counts writes and bytes, keeps nothing. */
  static final class Writes extends OutputStream {
    long writes;
    int bytes;

    @Override
    public void write(byte[] b, int off, int len) {
      writes++;
      bytes += len;
    }

    @Override
    public void write(int b) throws IOException {
      writes++;
      bytes++;
    }
  }
}
