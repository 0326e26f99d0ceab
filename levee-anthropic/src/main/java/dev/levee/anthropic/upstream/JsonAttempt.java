package dev.levee.anthropic.upstream;

import dev.levee.core.chain.AttemptContext;
import dev.levee.core.chain.AttemptResult;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.io.IOException;
import java.util.function.Function;

/** A JSON call: succeeds with the whole body, read within the attempt's time. */
public final class JsonAttempt extends UpstreamAttempt {

  private static final int MAX_BODY = 64 << 20;

  JsonAttempt(Upstreams upstreams, Function<Target, UpstreamRequest> requests, Cancellation cancellation) {
    super(upstreams, requests, cancellation);
  }

  @Override
  protected AttemptResult<Reply> answered(AttemptContext ctx, UpstreamResponse response, long startNanos) {
    ctx.control().firstByte(); // the response head is the first byte of a JSON answer (a hedge is no longer due)
    try (response; Watchdog.Timer limit = upstreams.watchdog().start(left(ctx.timeout(), startNanos), response::close)) {
      try {
        return AttemptResult.success(Reply.whole(response.status(), response.headers(), response.readBody(MAX_BODY)));
      } catch (IOException e) {
        return limit.fired() && !cancellation.isCancelled()
            ? AttemptResult.failed(Failure.of(FailureKind.TIMEOUT, 0, "timeout",
                "no complete answer within " + ctx.timeout().toMillis() + " ms"), null)
            : failed(e);
      }
    }
  }
}
