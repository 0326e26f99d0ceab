package dev.levee.emulator;

import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseWriter;
import dev.levee.core.time.Ticker;
import java.io.IOException;
import java.time.Duration;

/**
 * Streams a {@link StreamPlan} as {@code text/event-stream}, pacing content deltas and applying a
 * stream fault at its position ({@link StreamPlan#positionAfterDeltas(int)}):
 *
 * <ul>
 *   <li>{@code CUT}: the connection closes there — no {@code message_stop}, no terminating chunk;
 *   <li>{@code ERROR_EVENT}: an {@code event: error} with {@code overloaded_error}, then the
 *       response ends normally;
 *   <li>{@code STALL}: nothing more but {@code ping}s until the client goes away;
 *   <li>{@code MALFORMED}: one {@code content_block_delta} whose data is not JSON, then the rest;
 *   <li>{@code DUP}: every content delta twice.
 * </ul>
 */
final class StreamResponder {

  /** A content delta cut off inside a string: not JSON. */
  private static final SseEvent MALFORMED = new SseEvent("content_block_delta",
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"tr");

  private final Ticker ticker;

  StreamResponder(Ticker ticker) {
    this.ticker = ticker;
  }

  /**
   * @param fault the stream fault that strikes this attempt, or null
   */
  void respond(Exchange exchange, StreamPlan plan, Timing timing, FaultSpec fault) throws InterruptedException {
    exchange.response.getHeaders().put("cache-control", "no-cache");
    exchange.begin(200, "text/event-stream; charset=utf-8");
    SseWriter writer = new SseWriter(exchange.body());
    FaultSpec.Kind kind = fault == null ? FaultSpec.Kind.OK : fault.kind();
    int strikeAt = switch (kind) {
      case CUT, ERROR_EVENT, STALL, MALFORMED -> plan.positionAfterDeltas(fault.n());
      default -> -1;
    };
    int deltasSent = 0;
    try {
      for (int i = 0; i < plan.events().size(); i++) {
        if (i == strikeAt && strike(kind, exchange, writer, timing)) {
          return;
        }
        boolean delta = plan.isDelta(i);
        if (delta) {
          timing.sleeper().sleep(deltasSent == 0 ? timing.timeToFirstToken() : timing.deltaDelay());
        }
        if (exchange.clientGone()) {
          exchange.abort("client gone");
          return;
        }
        if (i == plan.events().size() - 1) {
          exchange.stopWatching(); // a client may hang up as soon as it reads message_stop
        }
        writer.write(plan.events().get(i));
        if (delta) {
          if (deltasSent == 0) {
            exchange.record.firstContent(ticker.nanos());
          }
          deltasSent++;
          if (kind == FaultSpec.Kind.DUP) {
            writer.write(plan.events().get(i));
          }
        }
      }
      exchange.complete();
    } catch (IOException e) {
      exchange.markGone();
      exchange.abort("client gone");
    }
  }

  /** Applies a mid-stream fault; true when it ended the exchange. */
  private static boolean strike(FaultSpec.Kind kind, Exchange exchange, SseWriter writer, Timing timing)
      throws IOException, InterruptedException {
    switch (kind) {
      case CUT -> exchange.abort("cut");
      case ERROR_EVENT -> {
        writer.write(new SseEvent("error", Json.string(ApiError.overloaded("Overloaded").toJson(exchange.requestId))));
        exchange.complete();
      }
      case STALL -> stall(exchange, writer, timing);
      default -> {
        writer.write(MALFORMED);
        return false;
      }
    }
    return true;
  }

  /** Withholds content, pinging every {@code pingInterval}, until the client goes away. */
  private static void stall(Exchange exchange, SseWriter writer, Timing timing)
      throws IOException, InterruptedException {
    Duration every = timing.pingInterval().isZero() ? null : timing.pingInterval();
    while (!exchange.awaitGone(every)) {
      writer.write(new SseEvent("ping", "{\"type\":\"ping\"}"));
    }
    exchange.abort("stalled until the client left");
  }
}
