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
import java.util.function.Function;

/**
 * A fake Messages API upstream on a free loopback port whose every answer a script chooses from
 * the request's body (the calls so far in {@link #calls}): a stream of events, sent in one write,
 * a JSON answer, or an error status with its JSON body. For what the emulator will not do.
 */
final class ScriptedUpstream implements AutoCloseable {

  /**
   * An answer: status 200 with {@code body} as an event stream, or {@code status} with {@code body}
   * as JSON; or, by {@link #json}, a 200 with a JSON body.
   */
  record Answer(int status, String body, String contentType) {

    Answer(int status, String body) {
      this(status, body, status == 200 ? "text/event-stream" : "application/json");
    }

    static Answer json(String body) {
      return new Answer(200, body, "application/json");
    }

    static Answer stream(String... events) {
      return new Answer(200, String.join("", events));
    }

    static Answer overloaded() {
      return new Answer(529, OVERLOADED);
    }
  }

  static final String OVERLOADED = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}";

  final List<JsonNode> calls = new CopyOnWriteArrayList<>();
  private final Function<JsonNode, Answer> script;
  private final HttpServer server;

  ScriptedUpstream(Function<JsonNode, Answer> script) throws IOException {
    this.script = script;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/messages", this::answer);
    server.start();
  }

  /** The {@code upstreams:} entry for it, named {@code name}, to put before a config's {@code models:}. */
  String upstream(String name) {
    return "  " + name + ":\n    url: http://127.0.0.1:" + server.getAddress().getPort() + "\n";
  }

  private void answer(HttpExchange exchange) throws IOException {
    JsonNode request = Json.MAPPER.readTree(exchange.getRequestBody().readAllBytes());
    calls.add(request);
    Answer answer = script.apply(request);
    byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("content-type", answer.contentType());
    exchange.sendResponseHeaders(answer.status(), body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  static String event(String name, String data) {
    return "event: " + name + "\ndata: " + data + "\n\n";
  }

  static String messageStart(String model, long inputTokens) {
    return event("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_x\",\"type\":\"message\","
        + "\"role\":\"assistant\",\"model\":\"" + model + "\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,"
        + "\"usage\":{\"input_tokens\":" + inputTokens + ",\"output_tokens\":1}}}");
  }

  static String textStart() {
    return event("content_block_start",
        "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
  }

  static String text(String text) {
    return event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
        + "\"delta\":{\"type\":\"text_delta\",\"text\":" + Json.string(text) + "}}");
  }

  /** The end of an answer: its block's stop, {@code message_delta} with {@code stopReason}, {@code message_stop}. */
  static String end(String stopReason, long outputTokens) {
    return event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
        + event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" + stopReason
            + "\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":" + outputTokens + "}}")
        + event("message_stop", "{\"type\":\"message_stop\"}");
  }

  static String overloadedEvent() {
    return event("error", OVERLOADED);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
