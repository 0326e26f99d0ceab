package dev.levee.anthropic.upstream;

import dev.levee.core.chain.AttemptContext;
import dev.levee.core.chain.AttemptResult;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.io.IOException;
import java.util.Optional;
import java.util.function.Function;

/**
 * A JSON call: succeeds with the whole body, read within the attempt's time, when it has the
 * endpoint's {@link AnswerShape}. A 200 whose body is cut short (fewer bytes than its {@code
 * content-length}), not JSON or not the promised shape is a {@code SERVER_ERROR} ({@code
 * malformed_answer}): retried or passed to the next target, counted by the breaker, never relayed.
 */
public final class JsonAttempt extends UpstreamAttempt {

  private static final int MAX_BODY = 64 << 20;

  private final AnswerShape shape;

  JsonAttempt(Upstreams upstreams, Function<Target, UpstreamRequest> requests, Cancellation cancellation,
      AnswerShape shape) {
    super(upstreams, requests, cancellation);
    this.shape = shape;
  }

  @Override
  protected AttemptResult<Reply> answered(AttemptContext ctx, UpstreamResponse response, long startNanos) {
    ctx.control().firstByte(); // the response head is the first byte of a JSON answer (a hedge is no longer due)
    try (response; Watchdog.Timer limit = upstreams.watchdog().start(left(ctx.timeout(), startNanos), response::close,
        response::arrivedUnread)) {
      byte[] body;
      try {
        body = response.readBody(MAX_BODY);
      } catch (IOException e) {
        return limit.fired() && !cancellation.isCancelled()
            ? AttemptResult.failed(Failure.of(FailureKind.TIMEOUT, 0, "timeout",
                "no complete answer within " + ctx.timeout().toMillis() + " ms"), null)
            : failed(e);
      }
      Optional<String> cut = shortOf(response.header("content-length"), body.length);
      AnswerShape.Verdict verdict = cut.isEmpty() ? shape.check(body) : AnswerShape.Verdict.of(cut.get());
      Optional<String> problem = verdict.problem();
      return problem.isEmpty()
          ? AttemptResult.success(Reply.whole(response.status(), response.headers(), body, verdict))
          : AttemptResult.failed(Failure.of(FailureKind.SERVER_ERROR, response.status(), "malformed_answer",
              "the upstream answered " + response.status() + " but " + problem.get()), null);
    }
  }

  /** Why a body of {@code length} bytes is not the whole answer its {@code content-length} announced. */
  private static Optional<String> shortOf(String contentLength, int length) {
    if (contentLength == null) {
      return Optional.empty();
    }
    try {
      long announced = Long.parseLong(contentLength.trim());
      return announced == length ? Optional.empty()
          : Optional.of("the body has " + length + " of its " + announced + " bytes");
    } catch (NumberFormatException e) {
      return Optional.of("its content-length is not a number");
    }
  }
}
