package dev.levee.bench.sidebyside;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
 * The fixed, fast upstream of the side-by-side benchmark: answers every {@code POST} at once
 * with the same bytes, a JSON message ({@code content-length}) or (when the body asks {@code
 * "stream":true}) a whole SSE stream of {@code deltas} text deltas in one chunk of a {@code
 * transfer-encoding: chunked} body, then its terminal chunk — chunked as the Messages API's streams
 * are, so a proxy relays a stream as it would the API's rather than as a body of known length.
 * Never fails, never waits: any time measured beyond it is the proxy's.
 */
final class FixedUpstream implements AutoCloseable {

  static final byte[] JSON = ("{\"id\":\"msg_bench\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-fast\","
      + "\"content\":[{\"type\":\"text\",\"text\":\"A levee is an embankment that keeps a river in its bed.\"}],"
      + "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":12,\"output_tokens\":14}}")
      .getBytes(StandardCharsets.UTF_8);

  private final Server server;
  private final byte[] sse;

  private FixedUpstream(int deltas) {
    this.sse = sse(deltas);
    QueuedThreadPool threads = new QueuedThreadPool(64, 8);
    threads.setName("fixed-upstream");
    server = new Server(threads);
    ServerConnector connector = new ServerConnector(server, 1, 1);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    connector.setAcceptQueueSize(4096);
    server.addConnector(connector);
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String body = Content.Source.asString(request, StandardCharsets.UTF_8);
        boolean stream = body.contains("\"stream\":true");
        byte[] answer = stream ? sse : JSON;
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, stream ? "text/event-stream; charset=utf-8" : "application/json");
        response.getHeaders().put("request-id", "req_bench");
        if (!stream) {
          response.getHeaders().put(HttpHeader.CONTENT_LENGTH, answer.length);
          response.write(true, ByteBuffer.wrap(answer), callback);
          return true;
        }
        // chunked, as the Messages API streams: every event in one chunk, then the terminal chunk
        response.write(false, ByteBuffer.wrap(answer), Callback.from(() -> response.write(true, null, callback),
            callback::failed));
        return true;
      }
    });
  }

  static FixedUpstream start(int deltas) throws Exception {
    FixedUpstream upstream = new FixedUpstream(deltas);
    upstream.server.start();
    return upstream;
  }

  URI baseUrl() {
    return URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
  }

  /** The stream every streamed request gets: message_start, one text block of {@code deltas} deltas, the end. */
  static byte[] sse(int deltas) {
    StringBuilder s = new StringBuilder();
    event(s, "message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_bench\",\"type\":\"message\","
        + "\"role\":\"assistant\",\"model\":\"claude-fast\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,"
        + "\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}");
    event(s, "content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
    event(s, "ping", "{\"type\": \"ping\"}");
    for (int i = 0; i < deltas; i++) {
      event(s, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
          + "\"text\":\"word" + i + " \"}}");
    }
    event(s, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
    event(s, "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
        + "\"usage\":{\"output_tokens\":" + deltas + "}}");
    event(s, "message_stop", "{\"type\":\"message_stop\"}");
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void event(StringBuilder s, String name, String data) {
    s.append("event: ").append(name).append('\n').append("data: ").append(data).append("\n\n");
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }
}
