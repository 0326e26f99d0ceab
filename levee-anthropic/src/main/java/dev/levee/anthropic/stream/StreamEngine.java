package dev.levee.anthropic.stream;

import dev.levee.anthropic.error.ErrorClassifier;
import dev.levee.anthropic.time.SystemClock;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Endpoint;
import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.anthropic.upstream.UpstreamClient;
import dev.levee.anthropic.upstream.Upstreams;
import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.core.chain.Attempt;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.chain.Target;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.time.Ticker;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.function.Predicate;

/**
 * Opens resilient streams: the first attempt through the fallback chain up to its commit point,
 * then a {@link ResilientStream} that recovers breaks after it. One engine serves every stream;
 * thread-safe.
 */
public final class StreamEngine {

  private final FallbackChain chain;
  private final Upstreams upstreams;
  private final StreamSettings settings;
  private final Predicate<Target> prefill;
  private final StreamStats stats;

  /**
   * @param upstreams how every target is reached
   * @param prefill whether a target accepts a final assistant turn (see {@link PrefillSupport})
   */
  public StreamEngine(FallbackChain chain, Upstreams upstreams, StreamSettings settings, Predicate<Target> prefill,
      StreamStats stats) {
    this.chain = Objects.requireNonNull(chain);
    this.upstreams = Objects.requireNonNull(upstreams);
    this.settings = Objects.requireNonNull(settings);
    this.prefill = Objects.requireNonNull(prefill);
    this.stats = Objects.requireNonNull(stats);
  }

  /**
   * An engine for applications that embed Levee without the gateway: its own HTTP client (5 s
   * connect timeout), watchdog and statistics, the system clock and timers, and prefill support by
   * model family ({@link PrefillSupport}). Create one engine per application, not per request.
   *
   * @param endpoints where each target's upstream lives
   */
  public static StreamEngine standalone(FallbackChain chain, Function<Target, Endpoint> endpoints,
      StreamSettings settings) {
    Ticker ticker = SystemClock.ticker();
    Upstreams upstreams = new Upstreams(endpoints, new UpstreamClient(java.time.Duration.ofSeconds(5)),
        new ErrorClassifier(java.time.InstantSource.system()), new Watchdog(ticker, SystemClock.scheduler()), ticker);
    return new StreamEngine(chain, upstreams, settings, target -> PrefillSupport.byDefault(target.model()),
        new StreamStats(ticker));
  }

  /**
   * Runs the first attempt(s) of a stream through the chain, up to the commit point. On {@link
   * ChainResult.Answered} wrap the answer with {@link #resilient}; any other result is final and
   * nothing has reached the client.
   */
  public ChainResult<Reply> open(OriginalRequest request, List<Target> targets, Deadline deadline,
      Cancellation cancellation) {
    return open(request, targets, deadline, cancellation, null, UnaryOperator.identity());
  }

  /**
   * As {@link #open(OriginalRequest, List, Deadline, Cancellation)}, hedging the first call when it
   * has no first content delta after {@code hedgeAfter} (null: no hedge; see {@link
   * FallbackChain#execute(List, Deadline, boolean, dev.levee.core.chain.Attempt, java.time.Duration)}),
   * each attempt wrapped by {@code around} (the gateway reads every answer's rate-limit headers
   * this way).
   */
  public ChainResult<Reply> open(OriginalRequest request, List<Target> targets, Deadline deadline,
      Cancellation cancellation, java.time.Duration hedgeAfter, UnaryOperator<Attempt<Reply>> around) {
    return chain.execute(targets, deadline, false, around.apply(new StreamAttempt(upstreams,
        target -> upstreams.request(request, target, request.bodyFor(target.model())), settings, cancellation)),
        hedgeAfter);
  }

  /**
   * The client's stream from a committed first attempt.
   *
   * @param targets the route's chain (a recovery asks them in {@link Recovery#order} order)
   * @param recover whether breaks after the commit point are recovered ({@code resume: off} ends
   *     them with an error event)
   */
  public ResilientStream resilient(ChainResult.Answered<Reply> first, OriginalRequest request, List<Target> targets,
      boolean recover, Cancellation cancellation) {
    return new ResilientStream(first,
        new Recovery(request, targets, recover, settings, prefill, cancellation, chain, upstreams), stats);
  }
}
