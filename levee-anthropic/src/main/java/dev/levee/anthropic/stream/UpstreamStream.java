package dev.levee.anthropic.stream;

import dev.levee.anthropic.error.ErrorClassifier;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseEventTooLargeException;
import dev.levee.anthropic.sse.SseReader;
import dev.levee.anthropic.upstream.UpstreamResponse;
import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;

/**
 * Reads the events of one upstream SSE stream, turning every way it can fail into a {@link
 * StreamFailureException} with a classified {@link Failure}:
 *
 * <ul>
 *   <li><b>slow start</b>: no content delta within {@code ttftTimeout} of the stream opening →
 *       TIMEOUT;
 *   <li><b>stall</b>: no content event for {@code idleTimeout} once content flows ({@code ping}
 *       is not progress) → TIMEOUT;
 *   <li><b>cut</b>: the body ends (or the connection drops) before {@code message_stop} →
 *       CONNECTION;
 *   <li><b>in-band error</b>: {@code event: error} → classified by {@link ErrorClassifier};
 *   <li><b>malformed event</b>: one event past {@link SseReader#MAX_EVENT_BYTES} without its end
 *       → SERVER_ERROR {@code malformed_event}, as an event whose data is not JSON ({@link
 *       StreamSplicer}); the connection is closed, not drained.
 * </ul>
 *
 * <p>Limits are enforced by closing the response from the {@link Watchdog}'s thread, which
 * unblocks the read at once. Not thread-safe except {@link #close()}.
 */
public final class UpstreamStream implements AutoCloseable {

  private final UpstreamResponse response;
  private final SseReader reader;
  private final ErrorClassifier classifier;
  private final Duration ttftTimeout;
  private final Duration idleTimeout;
  private final Watchdog.Timer timer;
  private ArrayDeque<SseEvent> heldBack; // events read up to the commit point, to return again; null: none
  private boolean sawContent;
  private boolean finished;

  /**
   * @param ttftTimeout the longest wait for the first content delta, counted from now
   * @param idleTimeout the longest silence between content events once content flows
   */
  public UpstreamStream(UpstreamResponse response, ErrorClassifier classifier, Watchdog watchdog,
      Duration ttftTimeout, Duration idleTimeout) {
    this.response = response;
    this.reader = new SseReader(response.body());
    this.classifier = classifier;
    this.ttftTimeout = ttftTimeout;
    this.idleTimeout = idleTimeout;
    this.timer = watchdog.start(ttftTimeout, response::close, response::arrivedUnread);
  }

  /**
   * The next event; null after {@code message_stop} has been returned.
   *
   * @throws StreamFailureException when the stream failed in any of the ways above
   */
  public SseEvent next() throws StreamFailureException {
    if (heldBack != null) {
      SseEvent event = heldBack.poll();
      if (heldBack.isEmpty()) {
        heldBack = null; // relayed: nothing keeps them
      }
      if (event != null) {
        return event;
      }
    }
    if (finished) {
      return null;
    }
    SseEvent event;
    try {
      event = reader.next();
    } catch (SseEventTooLargeException e) {
      timer.close();
      throw new StreamFailureException(malformed(e.getMessage()));
    } catch (IOException e) {
      throw new StreamFailureException(timer.fired() ? timeoutFailure() : cut("connection lost: " + e.getMessage()));
    }
    if (event == null) {
      throw new StreamFailureException(timer.fired() ? timeoutFailure() : cut("stream ended before message_stop"));
    }
    EventType type = EventType.of(event.event());
    switch (type) {
      case CONTENT_BLOCK_DELTA, CONTENT_BLOCK_START, CONTENT_BLOCK_STOP, MESSAGE_DELTA -> {
        if (!sawContent && type == EventType.CONTENT_BLOCK_DELTA) {
          sawContent = true;
          timer.rearm(idleTimeout);
        } else if (sawContent) {
          timer.progress();
        }
      }
      case MESSAGE_STOP -> {
        finished = true;
        timer.close();
      }
      case ERROR -> {
        timer.close();
        throw new StreamFailureException(classifier.classifyStreamError(event.data()), event);
      }
      default -> { } // ping, message_start and unknown events are relayed but are not progress
    }
    return event;
  }

  /**
   * Gives back the events read up to the commit point: {@link #next()} returns them again, in
   * order, before it reads on (they were checked and timed when first read). Kept here rather
   * than by the {@link dev.levee.anthropic.upstream.Reply}, so that once relayed nothing holds
   * them (or the JSON trees parsed from them) for the rest of a long stream.
   */
  void holdBack(List<SseEvent> events) {
    heldBack = events.isEmpty() ? null : new ArrayDeque<>(events);
  }

  /** Whether {@code message_stop} has been read. */
  public boolean finished() {
    return finished;
  }

  /** Whether the next event is held back or its bytes are (at least partly) already received. */
  public boolean ready() {
    return heldBack != null || reader.ready();
  }

  /**
   * Runs {@code ready} once the next event's bytes start to arrive (or the stream breaks) instead
   * of waiting in {@link #next()}: see {@link UpstreamResponse#whenReadable}. The limits hold
   * meanwhile: the watchdog's close ends the wait.
   *
   * @return whether {@code ready} will run; false: call {@link #next()} now
   */
  public boolean whenReady(Runnable ready) {
    return heldBack == null && !finished && !reader.ready() && response.whenReadable(ready);
  }

  private Failure timeoutFailure() {
    return sawContent
        ? Failure.of(FailureKind.TIMEOUT, 0, "stream_stalled", "no content for " + idleTimeout.toMillis() + " ms")
        : Failure.of(FailureKind.TIMEOUT, 0, "first_token_timeout", "no first token within " + ttftTimeout.toMillis() + " ms");
  }

  private static Failure cut(String message) {
    return Failure.of(FailureKind.CONNECTION, 0, "stream_cut", message);
  }

  /**
   * A malformed upstream event (data not JSON, or an event without end past the reader's bound): a
   * server error of the target that sent it, retried before the commit point and recovered after it.
   */
  static Failure malformed(String message) {
    return Failure.of(FailureKind.SERVER_ERROR, 200, "malformed_event", message);
  }

  /** Stops the timer and closes the response (aborting the connection if the stream is unfinished). */
  @Override
  public void close() {
    timer.close();
    response.close();
  }
}
