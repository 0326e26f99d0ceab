package dev.levee.anthropic.stream;

import dev.levee.anthropic.sse.SseEvent;
import dev.levee.core.retry.Failure;
import java.io.IOException;
import java.util.Objects;

/** A stream that did not reach its end: cut, stalled, too slow to start, or errored in-band. */
public final class StreamFailureException extends IOException {

  private final transient Failure failure;
  private final transient SseEvent errorEvent;

  public StreamFailureException(Failure failure) {
    this(failure, null);
  }

  /** A failure caused by the upstream's own {@code event: error}, kept to relay as it came. */
  public StreamFailureException(Failure failure, SseEvent errorEvent) {
    super(failure.toString());
    this.failure = Objects.requireNonNull(failure);
    this.errorEvent = errorEvent;
  }

  /** The upstream's {@code event: error} that ended the stream, or null for cuts and stalls. */
  public SseEvent errorEvent() {
    return errorEvent;
  }

  public Failure failure() {
    return failure;
  }
}
