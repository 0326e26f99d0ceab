package dev.levee.gateway.pipeline;

import dev.levee.anthropic.server.ServerShutdownException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;

/**
 * The wire side of one client answer, written with blocking calls on the request's virtual
 * thread: a whole answer ({@link #send}), or a stream ({@link #startStream}, then {@link
 * #endStream}); {@link #abort} ends either abnormally. Headers are given once, with the status;
 * the {@link Responder} decides them.
 */
final class ClientResponse {

  private final Response response;
  private final Callback callback;
  private OutputStream stream;
  private int status;
  private boolean completed;

  ClientResponse(Response response, Callback callback) {
    this.response = response;
    this.callback = callback;
  }

  /** Whether the server ended this exchange because it is stopping (not the client leaving). */
  boolean endedByShutdown() {
    return ServerShutdownException.endedByShutdown(response.getRequest());
  }

  /** Writes a whole answer and completes. */
  void send(int status, Map<String, List<String>> headers, String contentType, byte[] body) {
    head(status, headers);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    try (Blocker.Callback written = Blocker.callback()) {
      response.write(true, ByteBuffer.wrap(body), written); // head and body in one write
      written.block();
    } catch (IOException e) {
      abort(e);
      return;
    }
    complete();
  }

  /** Commits a 200 {@code text/event-stream} answer and returns its body. */
  OutputStream startStream(Map<String, List<String>> headers) {
    head(200, headers);
    HttpFields.Mutable fields = response.getHeaders();
    fields.put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    fields.put(HttpHeader.CACHE_CONTROL, "no-cache");
    fields.remove(HttpHeader.CONTENT_LENGTH);
    stream = Content.Sink.asOutputStream(response);
    return stream;
  }

  /** Ends a stream started with {@link #startStream}: writes its last chunk and completes. */
  void endStream() {
    try {
      stream.close();
    } catch (IOException e) {
      abort(e);
      return;
    }
    complete();
  }

  /** The status sent (0 before anything was). */
  int status() {
    return status;
  }

  /** Ends the exchange abnormally (the client is gone, or the stream must not look finished). */
  void abort(Throwable cause) {
    if (!completed) {
      completed = true;
      callback.failed(cause);
    }
  }

  private void head(int status, Map<String, List<String>> headers) {
    this.status = status;
    response.setStatus(status);
    HttpFields.Mutable fields = response.getHeaders();
    headers.forEach((name, values) -> {
      if (values.size() == 1) {
        fields.put(name, values.get(0));
      } else {
        fields.remove(name);
        values.forEach(v -> fields.add(name, v));
      }
    });
  }

  private void complete() {
    if (!completed) {
      completed = true;
      callback.succeeded();
    }
  }
}
