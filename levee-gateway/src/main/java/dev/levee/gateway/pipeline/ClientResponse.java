package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The answer to one client request, written with blocking calls on the request's virtual
 * thread. Exactly one of {@link #send} or {@link #startStream} is used, then {@link #complete}
 * or {@link #abort}.
 */
final class ClientResponse {

  private final Response response;
  private final Callback callback;
  private Runnable beforeEnd = () -> { };
  private int status;
  private boolean completed;

  ClientResponse(Response response, Callback callback) {
    this.response = response;
    this.callback = callback;
  }

  /**
   * Runs {@code action} once, before the last byte goes out (e.g. to stop watching for a
   * disconnect: a watch still reading when the body ends would swallow the start of the next
   * request on a kept-alive connection).
   */
  void beforeEnd(Runnable action) {
    this.beforeEnd = action;
  }

  private void runBeforeEnd() {
    Runnable action = beforeEnd;
    beforeEnd = () -> { };
    action.run();
  }

  /** Ends a stream started with {@link #startStream()}: writes its last chunk and completes. */
  void endStream(OutputStream body) throws IOException {
    runBeforeEnd();
    body.close();
    complete();
  }

  /** Sets a header (replacing any earlier value). */
  ClientResponse header(String name, String value) {
    response.getHeaders().put(name, value);
    return this;
  }

  /** Copies headers (e.g. the upstream's {@code request-id}, rate-limit headers). */
  ClientResponse headers(Map<String, List<String>> headers) {
    HttpFields.Mutable fields = response.getHeaders();
    headers.forEach((name, values) -> {
      fields.remove(name);
      values.forEach(v -> fields.add(name, v));
    });
    return this;
  }

  /** Writes a whole body and completes. */
  void send(int status, String contentType, byte[] body) {
    this.status = status;
    response.setStatus(status);
    if (contentType != null) {
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    }
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    runBeforeEnd(); // the body goes out in one write: stop watching first
    try (OutputStream out = Content.Sink.asOutputStream(response)) {
      out.write(body);
    } catch (IOException e) {
      abort(e);
      return;
    }
    complete();
  }

  /** Writes an Anthropic-shaped error and completes. */
  void error(ApiError error, String requestId) {
    send(error.status(), "application/json", error.toBytes(requestId));
  }

  /** Commits a 200 {@code text/event-stream} response and returns its body stream. */
  OutputStream startStream() {
    status = 200;
    response.setStatus(200);
    HttpFields.Mutable fields = response.getHeaders();
    fields.put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    fields.put(HttpHeader.CACHE_CONTROL, "no-cache");
    fields.remove(HttpHeader.CONTENT_LENGTH);
    return Content.Sink.asOutputStream(response);
  }

  /** The status sent (0 before anything was). */
  int status() {
    return status;
  }

  void complete() {
    if (!completed) {
      completed = true;
      runBeforeEnd();
      callback.succeeded();
    }
  }

  /** Ends the exchange abnormally (the client is gone, or the stream must not look finished). */
  void abort(Throwable cause) {
    if (!completed) {
      completed = true;
      runBeforeEnd();
      callback.failed(cause);
    }
  }
}
