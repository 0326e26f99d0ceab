package dev.levee.emulator;

import dev.levee.anthropic.error.ApiError;
import dev.levee.core.time.Ticker;
import java.io.IOException;
import java.util.Arrays;
import org.eclipse.jetty.http.HttpHeader;

/**
 * Sends a non-streaming answer after the time streaming it would have taken (time to first token
 * plus one delta delay per further delta), applying a fault:
 *
 * <ul>
 *   <li>{@code CUT}: {@code content-length} of the whole body, then half of it, then the
 *       connection closes;
 *   <li>{@code ERROR_EVENT}: a 529 {@code overloaded_error} instead of the answer;
 *   <li>{@code STALL}: no response at all until the client goes away;
 *   <li>{@code MALFORMED}: a 200 whose body is the message without its final closing brace (invalid JSON);
 *   <li>{@code DUP}: no effect.
 * </ul>
 */
final class JsonResponder {

  private final Ticker ticker;

  JsonResponder(Ticker ticker) {
    this.ticker = ticker;
  }

  /**
   * @param deltas how many content deltas the same answer streams in
   * @param fault the fault that strikes this attempt, or null
   */
  void respond(Exchange exchange, byte[] message, int deltas, Timing timing, FaultSpec fault)
      throws InterruptedException {
    FaultSpec.Kind kind = fault == null ? FaultSpec.Kind.OK : fault.kind();
    if (kind == FaultSpec.Kind.STALL) {
      exchange.awaitGone(null);
      exchange.abort("stalled until the client left");
      return;
    }
    if (kind == FaultSpec.Kind.ERROR_EVENT) {
      exchange.fail(ApiError.overloaded("Overloaded"));
      return;
    }
    timing.sleeper().sleep(timing.timeToFirstToken().plus(timing.deltaDelay().multipliedBy(Math.max(0, deltas - 1))));
    if (exchange.clientGone()) {
      exchange.abort("client gone");
      return;
    }
    exchange.record.firstContent(ticker.nanos());
    switch (kind) {
      case CUT -> {
        exchange.begin(200, "application/json");
        exchange.response.getHeaders().put(HttpHeader.CONTENT_LENGTH, message.length);
        try {
          exchange.body().write(message, 0, message.length / 2);
        } catch (IOException e) {
          exchange.markGone();
        }
        exchange.abort("cut");
      }
      case MALFORMED -> exchange.sendJson(200, Arrays.copyOf(message, message.length - 1));
      default -> exchange.sendJson(200, message);
    }
  }
}
