package dev.levee.anthropic.server;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Reads a request body at a minimum average rate ({@link ServerLimits#minBodyRate()}), after an
 * allowance of {@link ServerLimits#headerTimeout()} from the request's first byte. A client that
 * stalls is noticed through the connection's idle timeout, set to the time its allowance has left
 * while waiting for bytes (and restored afterwards), so no read is left pending when the server
 * answers 408. The rule is on the average rate, so a client that sent much early may pause
 * longer later, but never longer than the connection's idle timeout. A body cut because the client
 * went away ({@link ClientGone}) is told apart from a malformed one ({@link Broken}) by whether the
 * connection's input has ended. The server's door reads bodies up to {@link ServerLimits#maxBody()}
 * with it; a handler that takes larger ones (Message Batches, up to 256 MB) reads them with it too,
 * under the same rate rule ({@link #read(Request, ServerLimits, long)}).
 */
public final class BodyReader {

  /** How reading ended. */
  public sealed interface Result {}

  /** The whole body, or its first {@code maxBody + 1} bytes when it is larger. */
  public record Body(byte[] bytes) implements Result {}

  /** The client sent too slowly, or stopped. */
  public record TooSlow(long received) implements Result {}

  /**
   * The client went away before its body ended: the connection's input ended (closed, or reset)
   * with fewer bytes than {@code content-length}, or before a chunked body's last chunk.
   */
  public record ClientGone(long received) implements Result {}

  /** The body could not be read as framed (a malformed chunked body) while the client is still there. */
  public record Broken() implements Result {}

  /**
   * The body did not fit in the memory the server holds for bodies ({@link BodyMemory}): {@code
   * error} is the answer. Its bytes were read on and dropped, under the same rate rule, so that a
   * client that writes its whole body before it reads (most HTTP clients) gets the answer, not a
   * broken pipe; {@code whole}: to its end (the connection can be kept), else to {@code maxBody + 1}.
   */
  public record NoRoom(ApiError error, boolean whole) implements Result {}

  /** The first array a body is read into, bytes; it doubles as bytes arrive, to the body's declared length. */
  private static final int FIRST_ARRAY = 16 * 1024;

  private BodyReader() {}

  static Result read(Request request, ServerLimits limits) throws InterruptedException {
    return read(request, limits, limits.maxBody());
  }

  /**
   * Reads {@code request}'s body, at most {@code maxBody + 1} bytes, at {@code limits}' minimum
   * rate after its header allowance.
   *
   * @param limits the header allowance ({@link ServerLimits#headerTimeout()}) and the minimum
   *     average rate ({@link ServerLimits#minBodyRate()}, bytes per second)
   * @param maxBody the most bytes wanted: a longer body gives its first {@code maxBody + 1}
   * @return the body, or how reading it ended otherwise
   * @throws InterruptedException when the reading thread is interrupted (the request cancelled)
   */
  public static Result read(Request request, ServerLimits limits, long maxBody) throws InterruptedException {
    EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
    long idleTimeout = endPoint.getIdleTimeout();
    long begin = request.getBeginNanoTime();
    long allowance = limits.headerTimeout().toNanos();
    long declared = request.getLength();
    long most = declared >= 0 ? Math.min(declared, maxBody + 1) : maxBody + 1; // the most its array needs
    byte[] body = null; // made, and grown, as bytes arrive: a client holds only what it has sent
    int received = 0; // bytes kept, or once refused, bytes read and dropped
    ApiError noRoom = null; // once the body did not fit: the rest is read and dropped, then this answered
    try {
      while (true) {
        Content.Chunk chunk = request.read();
        if (chunk == null) {
          long left = begin + allowance + received * 1_000_000_000L / limits.minBodyRate() - System.nanoTime();
          if (left <= 0) {
            return new TooSlow(received);
          }
          CompletableFuture<Void> readable = new CompletableFuture<>();
          // a body that stops altogether is cut when its allowance runs out, at the latest after the idle timeout
          endPoint.setIdleTimeout(Math.max(1, Math.min(idleTimeout, TimeUnit.NANOSECONDS.toMillis(left))));
          request.demand(() -> readable.complete(null));
          try {
            readable.get();
          } catch (ExecutionException e) {
            return new Broken();
          }
          continue;
        }
        if (Content.Chunk.isFailure(chunk)) {
          return chunk.getFailure() instanceof TimeoutException ? new TooSlow(received)
              : ended(endPoint) ? new ClientGone(received) : new Broken();
        }
        ByteBuffer bytes = chunk.getByteBuffer();
        int n = bytes.remaining();
        if (noRoom == null && received == 0 && chunk.isLast() && n <= maxBody
            && BodyMemory.hold(request, n).isEmpty()) { // all in one chunk (a buffered or replayed body): one copy
          byte[] whole = new byte[n];
          bytes.get(whole);
          chunk.release();
          return new Body(whole);
        }
        if (received + n > maxBody + 1) {
          n = (int) (maxBody + 1 - received);
        }
        if (noRoom == null && (body == null || received + n > body.length)) {
          int grown = (int) Math.min(most, Math.max(received + n, body == null ? FIRST_ARRAY : 2L * body.length));
          // what the array takes, up to maxBody: a larger body is refused for its size, not for memory
          Optional<ApiError> refused = BodyMemory.hold(request, Math.min(grown, maxBody));
          if (refused.isPresent()) {
            noRoom = refused.get();
            body = null;
            BodyMemory.letGo(request); // nothing is kept while the rest is read
          } else {
            body = body == null ? new byte[grown] : Arrays.copyOf(body, grown);
          }
        }
        if (noRoom == null) {
          bytes.get(body, received, n);
        }
        received += n;
        boolean last = chunk.isLast();
        chunk.release();
        if (last || received > maxBody) {
          return noRoom != null ? new NoRoom(noRoom, last) // to its end: the connection can serve the next request
              : new Body(received == body.length ? body : Arrays.copyOf(body, received));
        }
      }
    } finally {
      endPoint.setIdleTimeout(idleTimeout);
    }
  }

  /**
   * Reads the body as {@link #read(Request, ServerLimits, long)} does for a handler, answering for
   * itself when there is none to hand over: a client gone fails {@code callback} ({@link
   * ClientGoneException}: nobody is there to read an answer), a cancelled read fails it with the
   * interruption, and a body too slow or broken goes to {@code refuse} ({@link #refusal}) with the
   * connection marked to close after it.
   *
   * @param refuse sends an error answer (the caller's way: its access record, its headers)
   * @return the body (at most {@code maxBody + 1} bytes), or null when this answered
   */
  public static byte[] readOrAnswer(Request request, Response response, Callback callback, ServerLimits limits,
      long maxBody, Consumer<ApiError> refuse) {
    Result read;
    try {
      read = read(request, limits, maxBody);
    } catch (InterruptedException e) { // the request was cancelled (its client left, or the server stops)
      Thread.currentThread().interrupt();
      callback.failed(e);
      return null;
    }
    switch (read) {
      case Body body -> {
        return body.bytes();
      }
      case ClientGone gone -> callback.failed(new ClientGoneException());
      case TooSlow slow -> refuseAndClose(response, refuse, refusal(read, limits));
      case Broken broken -> refuseAndClose(response, refuse, refusal(read, limits));
      case NoRoom none -> {
        ServerIo.retryAfterIfLoad(response, none.error());
        if (!none.whole()) { // the rest of it is unread
          response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        refuse.accept(none.error());
      }
    }
    return null;
  }

  private static void refuseAndClose(Response response, Consumer<ApiError> refuse, ApiError error) {
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
    refuse.accept(error);
  }

  /**
   * The answer to a read that ended without a body while its client is still there, for the
   * connection to be closed after it: 408 {@code timeout_error} for a body too slow, 400 {@code
   * invalid_request_error} for one that could not be read as framed; null for a body, or for a client
   * gone (nobody is there to answer).
   */
  public static ApiError refusal(Result result, ServerLimits limits) {
    return switch (result) {
      case TooSlow slow -> new ApiError(408, "timeout_error",
          "The request body arrived too slowly (less than " + limits.minBodyRate() + " bytes/s).")
          .because(RefusalReason.BODY_TOO_SLOW);
      case Broken broken -> ApiError.invalidRequest("The request body could not be read.")
          .because(RefusalReason.BODY_UNREADABLE);
      case NoRoom none -> none.error();
      case Body body -> null;
      case ClientGone gone -> null;
    };
  }

  /**
   * Whether the connection's input has ended: the client closed it (or half-closed it), or reset
   * it (Jetty reads a reset as the input's end). Jetty fails a cut body and a malformed one alike
   * ({@code EofException "Early EOF"} once the head was parsed), so the failure's type cannot tell
   * them apart; the connection can — a client whose chunked body was malformed is still there,
   * waiting for its 400.
   */
  private static boolean ended(EndPoint endPoint) {
    return endPoint.isInputShutdown() || !endPoint.isOpen();
  }
}
