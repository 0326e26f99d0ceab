package dev.levee.emulator;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.server.DisconnectWatch;
import java.io.IOException;
import java.io.OutputStream;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One request being answered, in blocking style on its virtual thread: the Jetty request,
 * response and callback, the log record, and the ways an exchange can end — completed, aborted
 * mid-body, reset at the TCP level, or abandoned by the client. Ends exactly once. Not
 * thread-safe, except for the disconnect notification.
 */
final class Exchange {

  final Request request;
  final Response response;
  final AttemptRecord record;
  final String requestId;
  private final Callback callback;
  private final CompletableFuture<Void> closing;
  private final CompletableFuture<Void> gone = new CompletableFuture<>();
  private DisconnectWatch watch;
  private OutputStream body;
  private boolean ended;

  Exchange(Request request, Response response, Callback callback, AttemptRecord record, String requestId,
      CompletableFuture<Void> closing) {
    this.request = request;
    this.response = response;
    this.callback = callback;
    this.record = record;
    this.requestId = requestId;
    this.closing = closing;
  }

  /** Starts noticing a client that goes away; call once the body has been read. */
  void watchDisconnect() {
    watch = DisconnectWatch.start(request, this::markGone);
  }

  /** Records that the client went away (seen by the watch or by a failed write). */
  void markGone() {
    record.clientGone();
    gone.complete(null);
  }

  boolean clientGone() {
    return gone.isDone();
  }

  /**
   * Waits until the client goes away or the emulator closes, at most {@code max} (null: no limit).
   *
   * @return true when the client is gone or the emulator closing; false when {@code max} passed
   */
  boolean awaitGone(Duration max) throws InterruptedException {
    CompletableFuture<Object> either = CompletableFuture.anyOf(gone, closing);
    try {
      if (max == null) {
        either.get();
      } else {
        either.get(max.toNanos(), TimeUnit.NANOSECONDS);
      }
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      return true;
    }
  }

  /** Sets status and headers; the body follows through {@link #body()}. */
  void begin(int status, String contentType) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    record.status(status);
  }

  /** The response body as a blocking stream; each flush sends what was written. */
  OutputStream body() {
    if (body == null) {
      body = Content.Sink.asOutputStream(response);
    }
    return body;
  }

  /**
   * Sends a complete JSON body with {@code status}. The disconnect watch stops first: once the
   * last byte of a sized body is out, the client may send its next request on this connection,
   * and the watch must not read it.
   */
  void sendJson(int status, byte[] json) {
    closeWatch();
    begin(status, "application/json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, json.length);
    try {
      body().write(json);
      complete();
    } catch (IOException e) {
      markGone();
      abort("client gone");
    }
  }

  /** Sends an API error with its status. */
  void fail(ApiError error) {
    record.action(Integer.toString(error.status()));
    sendJson(error.status(), error.toBytes(requestId));
  }

  /** Ends the response normally (for a chunked body: with the terminating chunk). */
  void complete() throws IOException {
    if (ended) {
      return;
    }
    closeWatch();
    try {
      body().close();
      end();
      callback.succeeded();
    } catch (IOException e) {
      end();
      callback.failed(e);
      throw e;
    }
  }

  /**
   * Ends the exchange without finishing the response: whatever was flushed stays sent, then the
   * connection closes (FIN) without a terminating chunk or the rest of a declared length.
   */
  void abort(String why) {
    if (ended) {
      return;
    }
    closeWatch();
    try {
      if (body != null) {
        body.flush();
      }
    } catch (IOException e) {
      // the client is gone already; nothing more to flush
    }
    endPoint().close();
    end();
    callback.failed(new EofException("emulator: " + why));
  }

  /** Resets the TCP connection (RST, via SO_LINGER 0) before any response byte. */
  void reset() {
    closeWatch();
    EndPoint endPoint = endPoint();
    if (endPoint instanceof SocketChannelEndPoint socket && socket.getChannel() instanceof SocketChannel channel) {
      try {
        channel.setOption(StandardSocketOptions.SO_LINGER, 0);
        channel.close();
      } catch (IOException e) {
        // closing is all that matters; a failure here means the socket is gone already
      }
    }
    endPoint.close();
    end();
    callback.failed(new EofException("emulator: reset"));
  }

  private EndPoint endPoint() {
    return request.getConnectionMetaData().getConnection().getEndPoint();
  }

  /**
   * Stops the disconnect watch early: before the last bytes a client may react to (a client that
   * hangs up after a complete answer did not leave early). Write failures still mark it gone.
   */
  void stopWatching() {
    closeWatch();
  }

  private void closeWatch() {
    if (watch != null) {
      watch.close();
    }
  }

  private void end() {
    ended = true;
    record.finish();
  }

  boolean ended() {
    return ended;
  }
}
