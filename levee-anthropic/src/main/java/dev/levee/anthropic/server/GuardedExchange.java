package dev.levee.anthropic.server;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.sse.SseWriter;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.io.QuietException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One admitted request as the handler sees it: its body already read (served from memory), its
 * response and callback wrapped so that the server can end the exchange itself at shutdown
 * ({@link #endForShutdown}) — a 503 with {@code retry-after} before the answer started, an
 * {@code event: error} after a stream started — without racing the handler's own writes. Once
 * the server has ended it, the handler's later writes fail as if the client had gone, and its
 * completion is ignored.
 */
final class GuardedExchange {

  private final Callback callback;
  private final Consumer<GuardedExchange> onEnd;
  private final List<Consumer<Throwable>> failureListeners = new CopyOnWriteArrayList<>();
  final Request request;
  final Response response;
  final Callback handlerCallback;
  private boolean writing; // guarded by this
  private boolean takenOver; // guarded by this
  private boolean ended; // guarded by this
  private Runnable afterWrite; // guarded by this

  GuardedExchange(Request request, byte[] body, Response response, Callback callback, Consumer<GuardedExchange> onEnd) {
    this.callback = callback;
    this.onEnd = onEnd;
    this.request = new BufferedRequest(request, body);
    this.response = new GuardedResponse(this.request, response);
    this.handlerCallback = new HandlerCallback();
  }

  /**
   * Ends the exchange for a stopping server, once any write in progress has finished: an answer
   * not yet started gets {@code error} as its 503, a stream ends with it as an in-band {@code
   * event: error} (the API's SSE error shape).
   *
   * @param requestId the exchange's request id, for the error's {@code request_id}; null for none
   * @param retryAfterSeconds the {@code retry-after} of the 503
   * @return false when the exchange had ended already
   */
  boolean endForShutdown(ApiError error, String requestId, long retryAfterSeconds) {
    Runnable action = () -> finishForShutdown(error, requestId, retryAfterSeconds);
    synchronized (this) {
      if (ended || takenOver) {
        return false;
      }
      takenOver = true;
      // said before any write can fail on the takeover: a handler that completes its exchange on
      // that failure reads then whether the server ended it
      request.setAttribute(ServerShutdownException.ATTRIBUTE, Boolean.TRUE);
      if (writing) {
        afterWrite = action;
        action = null;
      }
    }
    if (action != null) {
      action.run();
    }
    ServerShutdownException cause = new ServerShutdownException();
    failureListeners.forEach(listener -> listener.accept(cause)); // the handler stops its upstream work
    return true;
  }

  /** Whether the answer was a stream when the server ended it (for the shutdown log). */
  boolean streaming() {
    String type = response.getHeaders().get(HttpHeader.CONTENT_TYPE);
    return response.isCommitted() && type != null && type.startsWith("text/event-stream");
  }

  private void finishForShutdown(ApiError error, String requestId, long retryAfterSeconds) {
    Response raw = ((GuardedResponse) response).getWrapped();
    if (!raw.isCommitted()) {
      byte[] jsonError = error.toBytes(requestId);
      raw.setStatus(503);
      raw.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
      raw.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(retryAfterSeconds));
      raw.getHeaders().put(HttpHeader.CONTENT_LENGTH, jsonError.length);
      raw.getHeaders().put(HttpHeader.CONNECTION, "close");
      raw.write(true, ByteBuffer.wrap(jsonError), Callback.from(this::end, x -> end()));
    } else if (streaming()) {
      byte[] event = SseWriter.encode(error.toEvent(requestId));
      raw.write(true, ByteBuffer.wrap(event), Callback.from(this::end, x -> end()));
    } else {
      endFailed(new EofException("server shutting down"));
    }
  }

  private void end() {
    if (markEnded()) {
      callback.succeeded();
      onEnd.accept(this);
    }
  }

  private void endFailed(Throwable cause) {
    if (markEnded()) {
      callback.failed(cause);
      onEnd.accept(this);
    }
  }

  private synchronized boolean markEnded() {
    if (ended) {
      return false;
    }
    ended = true;
    return true;
  }

  private synchronized boolean takenOver() {
    return takenOver;
  }

  private boolean startWrite() {
    synchronized (this) {
      if (takenOver || ended) {
        return false;
      }
      writing = true;
      return true;
    }
  }

  private void writeDone() {
    Runnable action;
    synchronized (this) {
      writing = false;
      action = afterWrite;
      afterWrite = null;
    }
    if (action != null) {
      action.run();
    }
  }

  /**
   * The request with its body served from memory, once: the body is let go as it is served, so
   * that a stream's exchange does not keep it for the stream's whole life beside the handler's
   * own copy. Failure listeners are kept for shutdown.
   */
  private final class BufferedRequest extends Request.Wrapper {
    private final boolean buffered;
    private byte[] body; // guarded by this; null once served

    BufferedRequest(Request request, byte[] body) {
      super(request);
      this.buffered = body != null;
      this.body = body;
    }

    @Override
    public Content.Chunk read() {
      if (!buffered) {
        return super.read();
      }
      byte[] served;
      synchronized (this) {
        served = body;
        body = null;
      }
      return served == null ? Content.Chunk.EOF : Content.Chunk.from(ByteBuffer.wrap(served), true);
    }

    @Override
    public void demand(Runnable demandCallback) {
      if (!buffered) {
        super.demand(demandCallback);
      } else {
        demandCallback.run();
      }
    }

    @Override
    public boolean consumeAvailable() {
      return buffered || super.consumeAvailable();
    }

    @Override
    public void addFailureListener(Consumer<Throwable> onFailure) {
      failureListeners.add(onFailure);
      super.addFailureListener(onFailure);
    }
  }

  /** Serialises the handler's writes with the server's shutdown ending. */
  private final class GuardedResponse extends Response.Wrapper {
    GuardedResponse(Request request, Response response) {
      super(request, response);
    }

    @Override
    public void write(boolean last, ByteBuffer byteBuffer, Callback writeCallback) {
      if (!startWrite()) {
        writeCallback.failed(new EofException("server shutting down"));
        return;
      }
      super.write(last, byteBuffer, Callback.from(() -> {
        writeDone();
        writeCallback.succeeded();
      }, x -> {
        writeDone();
        writeCallback.failed(x);
      }));
    }
  }

  /**
   * A handler's failure as Jetty gets it: quiet, since the handler has logged it already (one
   * access log line); otherwise Jetty logs every client that leaves before its answer as a WARN
   * with a stack trace (issue 9 item 6).
   */
  static final class Quiet extends EofException implements QuietException {
    Quiet(Throwable cause) {
      super(cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage());
      initCause(cause);
    }
  }

  /** The handler's completion: passed on, unless the server ended the exchange already. */
  private final class HandlerCallback implements Callback {
    @Override
    public void succeeded() {
      if (!takenOver()) {
        end();
      }
    }

    @Override
    public void failed(Throwable cause) {
      if (!takenOver()) {
        endFailed(cause instanceof QuietException ? cause : new Quiet(cause));
      }
    }

    @Override
    public InvocationType getInvocationType() {
      return callback.getInvocationType();
    }
  }
}
