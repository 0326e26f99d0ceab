package dev.levee.gateway.route;

import dev.levee.anthropic.ratelimit.RateLimitHeaders;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.Attempt;
import dev.levee.core.chain.AttemptResult;
import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.Target;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.route.Circuits;
import dev.levee.core.route.Cooling;
import dev.levee.core.route.Exclusion;
import dev.levee.core.route.RateLimits;
import dev.levee.core.route.RouteDecision;
import dev.levee.core.route.RouteRequest;
import dev.levee.core.route.RouterStatistics;
import dev.levee.core.route.Score;
import dev.levee.core.route.ScoringRouter;
import dev.levee.core.time.Sleeper;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.AliasChain;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * The scoring router as the gateway runs it (issue 13): one {@link ScoringRouter} over the
 * gateway's breakers, rate-limit cooldowns and {@link RateLimits}, with the {@link
 * RouterStatistics} every attempt outcome feeds ({@link #observer()}, next to the breakers and
 * SLI windows). The Planner asks it for a {@link RouteDecision} ({@link #decide}); the execute
 * stage paces the decision ({@link #pace}) and reads the rate-limit headers of every upstream
 * answer ({@link #reading}). Thread-safe.
 */
public final class ScoreRouting {

  private final RouterStatistics statistics;
  private final RateLimits rateLimits;
  private final ScoringRouter router;
  private final InstantSource wall;
  private final Sleeper sleeper;
  private final BiConsumer<String, Target> choices;

  /**
   * @param settings the {@code routing:} section
   * @param ticker the policies' monotonic time
   * @param wall wall-clock time, to read the headers' reset date-times
   * @param sleeper waits for a rate limit's reset
   * @param circuits each target's circuit ({@link Circuits#of})
   * @param cooling which targets cool after a 429 (the tier board's rate-limit cooldowns)
   * @param choices told the alias and first target of every paced routed request (metrics)
   */
  public ScoreRouting(RoutingSettings settings, Ticker ticker, InstantSource wall, Sleeper sleeper, Circuits circuits,
      Cooling cooling, BiConsumer<String, Target> choices) {
    this(settings, ticker, wall, sleeper, circuits, cooling, choices, List.of());
  }

  /**
   * @param configured the configured targets, whose statistics and rate limits are never evicted
   *     by the model names clients invent (as their breakers are not)
   */
  public ScoreRouting(RoutingSettings settings, Ticker ticker, InstantSource wall, Sleeper sleeper, Circuits circuits,
      Cooling cooling, BiConsumer<String, Target> choices, Collection<Target> configured) {
    this.statistics = new RouterStatistics(settings.statisticsConfig(), ticker, configured);
    this.rateLimits = new RateLimits(ticker, configured);
    this.router = new ScoringRouter(statistics, settings.priceTable(), settings.taskFitMatrix(), circuits, cooling,
        rateLimits);
    this.wall = Objects.requireNonNull(wall, "wall");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.choices = Objects.requireNonNull(choices, "choices");
  }

  /** Feeds the statistics (success EMA, p95) and the 429 {@code retry-after}s into pacing. */
  public CallObserver observer() {
    return CallObserver.both(statistics, rateLimits);
  }

  /** The per-target statistics, for {@code /health}. */
  public RouterStatistics statistics() {
    return statistics;
  }

  /** What the router decides for {@code request} to {@code alias} now (nothing reserved or counted). */
  public RouteDecision decide(AliasChain alias, RouteRequest request) {
    return router.route(alias.targets(), request);
  }

  /**
   * Paces a decision against the rate limits (Anthropic's {@code anthropic-ratelimit-*} headers):
   * the first ranked candidate whose remaining requests and tokens cover the request is reserved
   * and goes first; when none does, the request waits for the earliest reset among the targets
   * left out for their rate limit if that wait leaves {@code minAttemptTime} of the deadline,
   * else it is refused. The wait is rounded up to a whole second: resets and {@code retry-after}
   * are stated to the second, and the reset was read off another machine's wall clock, so a wait
   * cut to the millisecond could arrive just before the window turns and earn the 429 it avoids. A decision without rate-limited targets goes as decided. Counts the
   * choice.
   *
   * @param alias the alias, for the choice counter
   * @param inputTokens the request's estimated input tokens
   * @throws InterruptedException when the client goes away during the wait
   */
  public Paced pace(String alias, RouteDecision decision, long inputTokens, Deadline deadline,
      Duration minAttemptTime) throws InterruptedException {
    List<Target> order = decision.order();
    for (Score candidate : decision.ranked()) {
      if (rateLimits.tryReserve(candidate.target(), inputTokens)) {
        return go(alias, first(candidate.target(), order), Duration.ZERO);
      }
    }
    List<Target> limited = new ArrayList<>();
    decision.ranked().forEach(score -> limited.add(score.target())); // lost a reservation race
    decision.excluded().stream().filter(e -> e.reason() == Exclusion.Reason.RATE_LIMITED)
        .forEach(e -> limited.add(e.target()));
    if (limited.isEmpty()) {
      return go(alias, order, Duration.ZERO); // every target is open or cooling: the chain decides, as unrouted
    }
    Target soonest = limited.getFirst();
    Duration wait = rateLimits.untilCovered(soonest, inputTokens);
    for (Target target : limited) {
      Duration until = rateLimits.untilCovered(target, inputTokens);
      if (until.compareTo(wait) < 0) {
        soonest = target;
        wait = until;
      }
    }
    wait = wholeSeconds(wait);
    if (deadline.remaining().minus(wait).compareTo(minAttemptTime) < 0) {
      return new Paced.Refuse(soonest, wait);
    }
    if (wait.isPositive()) {
      sleeper.sleep(wait);
    }
    rateLimits.tryReserve(soonest, inputTokens);
    return go(alias, first(soonest, order), wait);
  }

  private static Duration wholeSeconds(Duration wait) {
    long seconds = wait.getSeconds() + (wait.getNano() > 0 ? 1 : 0);
    return Duration.ofSeconds(seconds);
  }

  private Paced go(String alias, List<Target> order, Duration waited) {
    choices.accept(alias, order.getFirst());
    return new Paced.Go(order, waited);
  }

  private static List<Target> first(Target target, List<Target> order) {
    List<Target> reordered = new ArrayList<>(order.size());
    reordered.add(target);
    order.stream().filter(t -> !t.equals(target)).forEach(reordered::add);
    return reordered;
  }

  /** Takes in the rate-limit headers of one answer from {@code target} (lower-case names). */
  public void observe(Target target, Map<String, List<String>> headers) {
    rateLimits.observe(target, RateLimitHeaders.parse(name -> {
      List<String> values = headers.get(name);
      return values == null || values.isEmpty() ? null : values.getFirst();
    }, wall));
  }

  /** {@code attempt}, with the rate-limit headers of each answer it gets (success or error) read into pacing. */
  public Attempt<Reply> reading(Attempt<Reply> attempt) {
    return ctx -> {
      AttemptResult<Reply> result = attempt.call(ctx);
      Reply reply = switch (result) {
        case AttemptResult.Success<Reply> success -> success.response();
        case AttemptResult.Failed<Reply> failed -> failed.response();
      };
      if (reply != null) {
        observe(ctx.target(), reply.headers());
      }
      return result;
    };
  }
}
