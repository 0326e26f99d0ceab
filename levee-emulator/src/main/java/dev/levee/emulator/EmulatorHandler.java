package dev.levee.emulator;

import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes requests: {@code /_emulator/*} control endpoints (no credentials, not logged), and the
 * {@code /v1/*} API, where every request is read, logged, checked for credentials (and, when
 * {@link EmulatorOptions#faithful}, for {@code anthropic-version}), then served.
 * Runs each request on a virtual thread (blocking handler).
 */
final class EmulatorHandler extends Handler.Abstract {

  /**
   * The API's versions ({@code anthropic-version}): docs.anthropic.com, "Versions"; and {@code
   * 2026-10-21}, which the official Java SDK sends from 3.14 on (its {@code PrepareRequest}).
   */
  private static final Set<String> VERSIONS = Set.of("2023-06-01", "2023-01-01", "2026-10-21");

  private static final Logger LOG = LoggerFactory.getLogger(EmulatorHandler.class);

  /** The API's request size limit: 32 MB; larger bodies get 413 {@code request_too_large}. */
  static final int MAX_BODY = 32 * 1024 * 1024;

  private final EmulatorState state;
  private final MessagesEndpoint messages;

  EmulatorHandler(EmulatorState state) {
    this.state = state;
    this.messages = new MessagesEndpoint(state);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    if (path.startsWith("/_emulator/")) {
      control(method, path, request, response, callback);
      return true;
    }
    byte[] body = read(request);
    long now = state.options.ticker().nanos();
    AttemptRecord record = new AttemptRecord(state.log, now, state.elapsed().toMillis(), method, path,
        request.getHttpURI().getQuery(), request.getHeaders().get("anthropic-version"), beta(request), body);
    state.log.add(record);
    String requestId = state.ids.requestId();
    response.getHeaders().put("request-id", requestId);
    Exchange exchange = new Exchange(request, response, callback, record, requestId, state.closing);
    try {
      serve(exchange, method, path, body);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exchange.abort("interrupted");
    } catch (RuntimeException e) {
      if (exchange.ended()) {
        throw e;
      }
      LOG.error("emulator failure serving {} {} ({})", method, path, requestId, e); // the trace is for the log only
      if (response.isCommitted()) {
        exchange.abort("emulator failure");
      } else {
        exchange.fail(ApiError.api("Internal server error (an emulator failure; its log has the details)"));
      }
    }
    return true;
  }

  private void serve(Exchange exchange, String method, String path, byte[] body) throws InterruptedException {
    if (body.length > MAX_BODY) {
      exchange.fail(ApiError.requestTooLarge("Request exceeds the maximum allowed number of bytes."));
      return;
    }
    ApiError unauthenticated = Credentials.check(exchange.request.getHeaders());
    if (unauthenticated != null) {
      exchange.fail(unauthenticated);
      return;
    }
    String version = exchange.request.getHeaders().get("anthropic-version");
    if (state.options.faithful() && (version == null || version.isBlank())) {
      exchange.fail(ApiError.invalidRequest("anthropic-version: header is required"));
      return;
    }
    if (state.options.faithful() && !VERSIONS.contains(version)) {
      exchange.fail(ApiError.invalidRequest("anthropic-version: \"" + version + "\" is not a valid version"));
      return;
    }
    if (method.equals("POST") && path.equals("/v1/messages")) {
      exchange.watchDisconnect();
      messages.handle(exchange, body);
    } else if (method.equals("POST") && path.equals("/v1/messages/count_tokens")) {
      InfoEndpoints.countTokens(exchange, body, state);
    } else if (method.equals("GET") && path.equals("/v1/models")) {
      InfoEndpoints.models(exchange);
    } else if (method.equals("GET") && path.startsWith("/v1/models/")) {
      InfoEndpoints.model(exchange, path.substring("/v1/models/".length()));
    } else {
      exchange.fail(ApiError.notFound("Not Found"));
    }
  }

  private void control(String method, String path, Request request, Response response, Callback callback)
      throws IOException {
    byte[] body;
    int status = 200;
    String requestId = state.ids.controlRequestId(); // on every answer, as the API's paths do
    response.getHeaders().put("request-id", requestId);
    if (method.equals("GET") && path.equals("/_emulator/log")) {
      body = Json.bytes(state.log.snapshot());
    } else if (method.equals("POST") && path.equals("/_emulator/reset")) {
      state.reset();
      body = "{\"reset\":true}".getBytes(StandardCharsets.UTF_8);
    } else if (method.equals("POST") && path.equals("/_emulator/scenario")) {
      try {
        Scenario next = Scenario.parse(new String(read(request), StandardCharsets.UTF_8), "POST /_emulator/scenario");
        state.play(next);
        body = ("{\"scenario\":true,\"phases\":" + next.phases().size() + "}").getBytes(StandardCharsets.UTF_8);
      } catch (ScenarioException e) {
        status = 400;
        body = ApiError.invalidRequest(e.getMessage()).toBytes(requestId);
      }
    } else {
      status = 404;
      body = ApiError.notFound("Not Found").toBytes(requestId);
    }
    response.setStatus(status);
    response.getHeaders().put("content-type", "application/json");
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  private static byte[] read(Request request) throws IOException {
    try (InputStream in = Content.Source.asInputStream(request)) {
      return in.readNBytes(MAX_BODY + 1);
    }
  }

  private static String beta(Request request) {
    List<String> values = request.getHeaders().getValuesList("anthropic-beta");
    return values.isEmpty() ? null : String.join(",", values);
  }
}
