package dev.levee.anthropic.upstream;

import dev.levee.anthropic.error.ErrorClassifier;
import dev.levee.core.chain.Target;
import dev.levee.core.time.Ticker;
import java.util.Objects;
import java.util.function.Function;

/**
 * How every target is reached: where its upstream lives, the shared HTTP client, the error
 * classifier, the watchdog that enforces limits, and the clock. Everything an attempt needs
 * besides the request itself. Thread-safe.
 *
 * @param endpoints the endpoint of each target's upstream
 */
public record Upstreams(Function<Target, Endpoint> endpoints, UpstreamClient client, ErrorClassifier classifier,
    Watchdog watchdog, Ticker ticker) {

  public Upstreams {
    Objects.requireNonNull(endpoints, "endpoints");
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(classifier, "classifier");
    Objects.requireNonNull(watchdog, "watchdog");
    Objects.requireNonNull(ticker, "ticker");
  }

  /** The call that carries {@code body} for {@code target}. */
  public UpstreamRequest request(OriginalRequest request, Target target, byte[] body) {
    return request.to(endpoints.apply(target), body);
  }

  /** Whether calls to {@code target} carry the client's own key (its upstream has none of its own). */
  public boolean forwardsClientKey(Target target) {
    return endpoints.apply(target).apiKey().isEmpty();
  }

  /**
   * A JSON call of {@code request} with each target's model and the request's tier edits; a 200
   * counts as success only with the {@link AnswerShape} of the request's path.
   */
  public JsonAttempt json(OriginalRequest request, Cancellation cancellation) {
    return new JsonAttempt(this, target -> request(request, target, request.bodyFor(target.model())), cancellation,
        AnswerShape.forPath(request.path()));
  }
}
