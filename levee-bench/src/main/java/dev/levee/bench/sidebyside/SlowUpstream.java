package dev.levee.bench.sidebyside;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The slow fixed upstream of {@link ManyStreams}, in its own JVM (so the benchmark's client and
 * this server each stay within the per-process file limit): every {@code POST} gets the same
 * stream — {@code message_start}, the block start and a ping at once, then {@code deltas} text
 * deltas spaced evenly over {@code seconds}, then the end. Holds ten thousand streams on one
 * timer thread: each write is asynchronous and schedules the next when it has completed, so no
 * thread waits for a stream. Never fails: any time measured beyond it is the client's or the
 * proxy's.
 *
 * <p>{@code java -cp levee-bench.jar dev.levee.bench.sidebyside.SlowUpstream <deltas> <seconds>};
 * prints {@code UPSTREAM <base url>} once listening, stops when its standard input closes.
 */
public final class SlowUpstream {

  /** The listen backlog asked for; the kernel caps it at {@code net.core.somaxconn}. */
  static final int ACCEPT_QUEUE = 65_535;

  private final Server server;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("slow-upstream-timer").factory());
  private final byte[] head;
  private final byte[][] deltas;
  private final byte[] tail;
  private final long intervalNanos;

  private SlowUpstream(int deltaCount, Duration duration) {
    this.intervalNanos = duration.toNanos() / Math.max(1, deltaCount);
    StringBuilder h = new StringBuilder();
    event(h, "message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_bench\",\"type\":\"message\","
        + "\"role\":\"assistant\",\"model\":\"claude-fast\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,"
        + "\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}");
    event(h, "content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
    event(h, "ping", "{\"type\": \"ping\"}");
    this.head = bytes(h);
    this.deltas = new byte[deltaCount][];
    for (int i = 0; i < deltaCount; i++) {
      StringBuilder d = new StringBuilder();
      event(d, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
          + "\"text\":\"word" + i + " \"}}");
      deltas[i] = bytes(d);
    }
    StringBuilder t = new StringBuilder();
    event(t, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
    event(t, "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
        + "\"usage\":{\"output_tokens\":" + deltaCount + "}}");
    event(t, "message_stop", "{\"type\":\"message_stop\"}");
    this.tail = bytes(t);

    QueuedThreadPool threads = new QueuedThreadPool(64, 4);
    threads.setName("slow-upstream");
    server = new Server(threads);
    ServerConnector connector = new ServerConnector(server, 2, 2);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    connector.setAcceptQueueSize(ACCEPT_QUEUE);
    connector.setIdleTimeout(Duration.ofMinutes(5).toMillis());
    server.addConnector(connector);
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        Content.Source.consumeAll(request, Callback.from(() -> stream(response, callback), callback::failed));
        return true;
      }
    });
  }

  private void stream(Response response, Callback callback) {
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    response.getHeaders().put("request-id", "req_bench");
    long start = System.nanoTime();
    response.write(false, ByteBuffer.wrap(head), new Next(response, callback, start, 0));
  }

  /** After a write completes: the next delta at its time, or the end. */
  private final class Next implements Callback {
    private final Response response;
    private final Callback done;
    private final long start;
    private final int index; // the delta to write next

    Next(Response response, Callback done, long start, int index) {
      this.response = response;
      this.done = done;
      this.start = start;
      this.index = index;
    }

    @Override
    public void succeeded() {
      long delay = start + (index + 1) * intervalNanos - System.nanoTime();
      timer.schedule(() -> {
        if (index == deltas.length) {
          response.write(true, ByteBuffer.wrap(tail), done);
        } else {
          response.write(false, ByteBuffer.wrap(deltas[index]), new Next(response, done, start, index + 1));
        }
      }, Math.max(0, delay), TimeUnit.NANOSECONDS);
    }

    @Override
    public void failed(Throwable x) {
      done.failed(x);
    }

    @Override
    public InvocationType getInvocationType() {
      return InvocationType.NON_BLOCKING;
    }
  }

  private static void event(StringBuilder s, String name, String data) {
    s.append("event: ").append(name).append('\n').append("data: ").append(data).append("\n\n");
  }

  private static byte[] bytes(StringBuilder s) {
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  public static void main(String[] args) throws Exception {
    SlowUpstream upstream = new SlowUpstream(Integer.parseInt(args[0]), Duration.ofMillis((long) (Double.parseDouble(args[1]) * 1000)));
    upstream.server.start();
    System.out.println("UPSTREAM http://127.0.0.1:" + ((ServerConnector) upstream.server.getConnectors()[0]).getLocalPort());
    System.out.flush();
    while (System.in.read() >= 0) {
      // wait for the parent to close our input
    }
    upstream.server.stop();
    upstream.timer.shutdownNow();
  }
}
