package dev.levee.anthropic.stream;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.core.retry.Failure;
import java.io.IOException;
import java.util.Objects;

/** A stream that did not reach its end: cut, stalled, too slow to start, or errored in-band. */
public final class StreamFailureException extends IOException {

  private final transient Failure failure;
  private final transient SseEvent upstreamError;
  private final transient ApiError leveeError;

  public StreamFailureException(Failure failure) {
    this(failure, null, null);
  }

  /** A failure caused by the upstream's own {@code event: error}, kept to relay as it came. */
  public StreamFailureException(Failure failure, SseEvent upstreamError) {
    this(failure, upstreamError, null);
  }

  /** A stream Levee ends itself with {@code error} (it could not be completed). */
  public StreamFailureException(Failure failure, ApiError leveeError) {
    this(failure, null, Objects.requireNonNull(leveeError, "leveeError"));
  }

  private StreamFailureException(Failure failure, SseEvent upstreamError, ApiError leveeError) {
    super(failure.toString());
    this.failure = Objects.requireNonNull(failure);
    this.upstreamError = upstreamError;
    this.leveeError = leveeError;
  }

  /** The upstream's {@code event: error} that ended the stream, or null (cuts, stalls, Levee's own errors). */
  public SseEvent upstreamError() {
    return upstreamError;
  }

  /**
   * The {@code event: error} that ends the client's stream: the upstream's own exactly as it came,
   * or Levee's with {@code requestId} as its {@code request_id} (as Levee's other error bodies
   * carry it); null for a break that was never meant for the client (cuts and stalls before
   * recovery).
   *
   * @param requestId Levee's id of the client's request, or null for none
   */
  public SseEvent errorEvent(String requestId) {
    if (upstreamError != null) {
      return upstreamError;
    }
    return leveeError == null ? null : leveeError.toEvent(requestId);
  }

  public Failure failure() {
    return failure;
  }
}
