package dev.levee.anthropic.upstream;

import dev.levee.core.chain.Attempt;
import dev.levee.core.chain.AttemptContext;
import dev.levee.core.chain.AttemptResult;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.function.Function;

/**
 * One upstream call as a {@link dev.levee.core.chain.FallbackChain} attempt: sends, classifies
 * an error answer or a transport failure, and leaves reading a successful answer to the
 * subclass ({@link JsonAttempt}: the whole body; the stream attempt: up to the commit point).
 * Never retries on its own; a call the client abandoned is {@code CANCELLED}, whatever broke.
 */
public abstract class UpstreamAttempt implements Attempt<Reply> {

  private static final int MAX_ERROR_BODY = 1 << 20;

  protected final Upstreams upstreams;
  protected final Cancellation cancellation;
  private final Function<Target, UpstreamRequest> requests;

  /**
   * @param requests the call to make for each target
   */
  protected UpstreamAttempt(Upstreams upstreams, Function<Target, UpstreamRequest> requests, Cancellation cancellation) {
    this.upstreams = upstreams;
    this.requests = requests;
    this.cancellation = cancellation;
  }

  @Override
  public final AttemptResult<Reply> call(AttemptContext ctx) {
    long start = upstreams.ticker().nanos();
    UpstreamResponse response;
    try {
      response = upstreams.client().send(requests.apply(ctx.target()), ctx.timeout(), scope(ctx));
    } catch (CancellationException e) {
      return cancelled();
    } catch (IOException e) {
      return failed(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return cancelled();
    }
    if (response.status() < 200 || response.status() >= 300) {
      ctx.control().firstByte(); // an error answer has begun: no hedge is due while its body is read
      try (response) {
        byte[] body = response.readBody(MAX_ERROR_BODY);
        return AttemptResult.failed(upstreams.classifier().classifyResponse(response.status(), response::header, body,
            upstreams.forwardsClientKey(ctx.target())), Reply.whole(response.status(), response.headers(), body));
      } catch (IOException e) {
        return failed(e);
      }
    }
    return answered(ctx, response, start);
  }

  /**
   * The cancel switch of this call: the request's, or — for one of a hedged pair — its own, thrown
   * by the client leaving and by the call losing its race (which closes its upstream connection).
   */
  private Cancellation scope(AttemptContext ctx) {
    if (!ctx.control().abortable()) {
      return cancellation;
    }
    Cancellation own = new Cancellation();
    cancellation.register(own::cancel); // kept while the request lives: a stream outlives the attempt
    ctx.control().onAbort(own::cancel);
    return own;
  }

  /** A reply that lost its hedged race: a stream's connection is closed. */
  @Override
  public void discard(Reply reply) {
    if (reply.stream() != null) {
      reply.stream().close();
    }
  }

  /**
   * Reads a successful answer; closes {@code response} unless the result keeps it open.
   *
   * @param startNanos the ticker reading when the call was sent
   */
  protected abstract AttemptResult<Reply> answered(AttemptContext ctx, UpstreamResponse response, long startNanos);

  /** The attempt's time still left, at least 1 ms. */
  protected Duration left(Duration limit, long startNanos) {
    Duration left = limit.minus(Duration.ofNanos(upstreams.ticker().nanos() - startNanos));
    return left.isPositive() ? left : Duration.ofMillis(1);
  }

  /** A transport failure: cancelled when the client went away, else classified. */
  protected AttemptResult<Reply> failed(IOException e) {
    return cancellation.isCancelled() ? cancelled()
        : AttemptResult.failed(upstreams.classifier().classifyException(e), null);
  }

  /** The client went away: nothing more is owed, and the target is not to blame. */
  protected static AttemptResult<Reply> cancelled() {
    return AttemptResult.failed(Failure.of(FailureKind.CANCELLED, 0, "cancelled", "the client went away"), null);
  }
}
