package dev.levee.gateway.pipeline;

import dev.levee.anthropic.server.SendTimeoutException;
import dev.levee.anthropic.server.ServerShutdownException;
import dev.levee.anthropic.sse.SseWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.BufferUtil;
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
  private SseWriter stream;
  private int status;
  private boolean completed;
  private boolean aborted;
  private boolean shutdownAtTheEnd; // endedByShutdown() as it was when the exchange completed
  private boolean sendTimeoutAtTheEnd; // endedBySendTimeout() as it was when the exchange was aborted

  ClientResponse(Response response, Callback callback) {
    this.response = response;
    this.callback = callback;
  }

  /**
   * Whether the server ended this exchange because it is stopping (not the client leaving); once
   * the exchange completed, as it was then (a stream ends before stage 6, and Jetty may reuse the
   * request's state once its callback completed).
   */
  boolean endedByShutdown() {
    return completed ? shutdownAtTheEnd : ServerShutdownException.endedByShutdown(response.getRequest());
  }

  /**
   * Whether the server's {@code send-timeout} cut this exchange's connection: the client took no
   * byte of a pending write for that long (it stopped reading), not a client that disconnected;
   * once the exchange completed, as it was when it was {@link #abort aborted} (false for one that
   * completed normally: its answer went out whole), for the reason {@link #endedByShutdown} gives.
   */
  boolean endedBySendTimeout() {
    return completed ? sendTimeoutAtTheEnd : SendTimeoutException.endedBySendTimeout(response.getRequest());
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

  /**
   * Commits a 200 {@code text/event-stream} answer and returns the writer of its body: its head
   * leaves with the first events written, and the events still gathered at {@link #endStream}
   * leave with the body's last chunk.
   */
  SseWriter startStream(Map<String, List<String>> headers) {
    head(200, headers);
    HttpFields.Mutable fields = response.getHeaders();
    fields.put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    fields.put(HttpHeader.CACHE_CONTROL, "no-cache");
    fields.remove(HttpHeader.CONTENT_LENGTH);
    stream = new SseWriter(new Body(response));
    return stream;
  }

  /**
   * Ends a stream started with {@link #startStream}: writes the events still gathered with its
   * last chunk, in one write, and completes. Nothing once the exchange has completed or been
   * aborted (the handler ends a stream before stage 6; stage 7 asks again).
   */
  void endStream() {
    if (completed) {
      return;
    }
    try {
      stream.end();
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

  /**
   * Ends the exchange abnormally (the client is gone, or the stream must not look finished): a
   * stream's gathered events are dropped unwritten ({@link SseWriter#discard}).
   */
  void abort(Throwable cause) {
    if (stream != null) {
      stream.discard();
    }
    if (!completed) {
      shutdownAtTheEnd = endedByShutdown();
      sendTimeoutAtTheEnd = endedBySendTimeout();
      completed = true;
      aborted = true;
      callback.failed(cause);
    }
  }

  /**
   * Whether the exchange ended abnormally ({@link #abort}): the client went away, a write failed
   * — a stream whose end could not be written did not reach the client whole, whatever its relay
   * saw.
   */
  boolean aborted() {
    return aborted;
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
      shutdownAtTheEnd = endedByShutdown(); // sendTimeoutAtTheEnd stays false: an answer written whole was not cut
      completed = true;
      callback.succeeded();
    }
  }

  /**
   * A streamed answer's body: each write is sent at once, a blocking write of the response (Jetty's
   * core {@link Response} keeps nothing back), so {@link #flush()} has nothing to do — Jetty's own
   * {@code Content.Sink.asOutputStream} sent an empty write for it, a pass through Jetty's write
   * path per flush; the end goes out with the last bytes, as one chunk and the terminal chunk in
   * one socket write.
   */
  private static final class Body extends OutputStream implements SseWriter.Ending {
    private final Response response;
    private final Blocker.Shared blocker = new Blocker.Shared();

    Body(Response response) {
      this.response = response;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      send(false, ByteBuffer.wrap(b, off, len));
    }

    @Override
    public void end(byte[] b, int off, int len) throws IOException {
      send(true, len == 0 ? BufferUtil.EMPTY_BUFFER : ByteBuffer.wrap(b, off, len));
    }

    @Override
    public void close() throws IOException {
      send(true, BufferUtil.EMPTY_BUFFER);
    }

    private void send(boolean last, ByteBuffer content) throws IOException {
      try (Blocker.Callback written = blocker.callback()) {
        response.write(last, content, written);
        written.block();
      }
    }
  }
}
