package dev.levee.gateway.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.levee.anthropic.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A fake Messages API upstream on a free loopback port that streams an answer without end to a
 * stream request whose first user message starts with {@value #ENDLESS}: {@code message_start}, a
 * text block, then content deltas of 16 KiB of text each, written as fast as its client takes them,
 * until the client hangs up (or 1 GiB, a guard) — a very long output, which fills the socket
 * buffers between the gateway and a client that does not read in a few hundred milliseconds where
 * the emulator's {@code ping}s take seconds. Every other request gets a short whole answer (a
 * stream, or JSON). Each request runs on a virtual thread of its own; each call is recorded.
 */
final class EndlessUpstream implements AutoCloseable {

  /** How the first user message of a request for an endless stream starts. */
  static final String ENDLESS = "endless";

  /** What the upstream has stopped writing after, unless its client hung up first. */
  private static final long GUARD = 1L << 30;

  /** One call: its first user message, and how its answer ended (null while it goes on). */
  static final class Call {
    final String prompt;
    private volatile String end;
    private volatile long bytes;

    private Call(String prompt) {
      this.prompt = prompt;
    }

    /** {@code hung up} (the client closed the connection), {@code complete}, or {@code guard}; null while the answer goes on. */
    String end() {
      return end;
    }

    /** The answer's bytes written so far. */
    long bytes() {
      return bytes;
    }

    @Override
    public String toString() {
      return "call " + Json.string(prompt) + ": " + (end == null ? "open" : end) + " after " + bytes + " bytes";
    }
  }

  final List<Call> calls = new CopyOnWriteArrayList<>();
  private final HttpServer server;
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  EndlessUpstream() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(threads); // the default runs one exchange at a time
    server.createContext("/v1/messages", this::answer);
    server.start();
  }

  /** The {@code upstreams:} entry for it, named {@code name}, to put before a config's {@code models:}. */
  String upstream(String name) {
    return "  " + name + ":\n    url: http://127.0.0.1:" + server.getAddress().getPort() + "\n";
  }

  /** The calls whose first user message starts with {@code prefix}. */
  List<Call> calls(String prefix) {
    return calls.stream().filter(call -> call.prompt.startsWith(prefix)).toList();
  }

  private void answer(HttpExchange exchange) throws IOException {
    JsonNode request = Json.MAPPER.readTree(exchange.getRequestBody().readAllBytes());
    Call call = new Call(request.path("messages").path(0).path("content").asText());
    calls.add(call);
    String model = request.path("model").asText();
    boolean stream = request.path("stream").asBoolean();
    try (OutputStream out = exchange.getResponseBody()) {
      if (!stream) {
        byte[] body = ("{\"id\":\"msg_x\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"" + model
            + "\",\"content\":[{\"type\":\"text\",\"text\":\"Fine.\"}],\"stop_reason\":\"end_turn\","
            + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":2}}").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("content-type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        out.write(body);
        call.bytes = body.length;
        call.end = "complete";
        return;
      }
      exchange.getResponseHeaders().add("content-type", "text/event-stream");
      exchange.sendResponseHeaders(200, 0);
      write(out, call, ScriptedUpstream.messageStart(model, 5) + ScriptedUpstream.textStart());
      if (!call.prompt.startsWith(ENDLESS)) {
        write(out, call, ScriptedUpstream.text("Fine.") + ScriptedUpstream.end("end_turn", 2));
        call.end = "complete";
        return;
      }
      String delta = ScriptedUpstream.text("word ".repeat(16 * 1024 / 5));
      while (call.bytes < GUARD) {
        write(out, call, delta);
      }
      call.end = "guard";
    } catch (IOException e) {
      call.end = "hung up";
    }
  }

  private static void write(OutputStream out, Call call, String events) throws IOException {
    byte[] bytes = events.getBytes(StandardCharsets.UTF_8);
    out.write(bytes);
    out.flush();
    call.bytes += bytes.length;
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
