package dev.levee.core.route;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Orders an alias's targets for one request by the published score (see {@link Score}): the
 * router of the Planner stage ({@code route: score}).
 *
 * <p>Candidates are the targets whose circuit is not OPEN ({@link Circuits}), that are not cooling
 * down ({@link Cooling}) and whose remaining rate limit covers the request ({@link Pacing}). Each
 * is scored from the {@link RouterStatistics} now, the {@link PriceTable} and the {@link
 * TaskFitMatrix}; the candidates are sorted by total score, highest first, and equal totals keep
 * the chain's order, so a decision is deterministic. The router never decides whether a request
 * is retried or how long it may take: the chain's execute stage still applies the failure
 * taxonomy and the deadline to the order it gets.
 *
 * <p>Pure: it reads time only through the statistics' ticker and holds no state of its own.
 * Thread-safe when its collaborators are.
 */
public final class ScoringRouter {

  private final RouterStatistics statistics;
  private final PriceTable prices;
  private final TaskFitMatrix taskFit;
  private final Circuits circuits;
  private final Cooling cooling;
  private final Pacing pacing;

  /**
   * @param statistics per-target measurements, fed by every attempt outcome
   * @param prices list prices per model ({@link PriceTable#defaults()} unless configured)
   * @param taskFit the task-fit matrix ({@link TaskFitMatrix#defaults()} unless configured)
   * @param circuits each target's circuit state
   * @param cooling which targets are cooling down
   * @param pacing which targets' rate limits cover a request
   */
  public ScoringRouter(RouterStatistics statistics, PriceTable prices, TaskFitMatrix taskFit, Circuits circuits,
      Cooling cooling, Pacing pacing) {
    this.statistics = Objects.requireNonNull(statistics, "statistics");
    this.prices = Objects.requireNonNull(prices, "prices");
    this.taskFit = Objects.requireNonNull(taskFit, "taskFit");
    this.circuits = Objects.requireNonNull(circuits, "circuits");
    this.cooling = Objects.requireNonNull(cooling, "cooling");
    this.pacing = Objects.requireNonNull(pacing, "pacing");
  }

  /**
   * Scores {@code chain}'s targets for {@code request}.
   *
   * @param chain the alias's targets in their configured (fallback) order; duplicates are kept once
   * @return the ranked candidates and the excluded targets
   */
  public RouteDecision route(List<Target> chain, RouteRequest request) {
    List<Score> scores = new ArrayList<>(chain.size());
    List<Exclusion> excluded = new ArrayList<>();
    for (int i = 0; i < chain.size(); i++) {
      Target target = chain.get(i);
      if (chain.subList(0, i).contains(target)) {
        continue; // listed twice: keep its first place
      }
      Exclusion.Reason reason = exclusion(target, request);
      if (reason != null) {
        excluded.add(new Exclusion(target, reason));
      } else {
        scores.add(score(target, request));
      }
    }
    scores.sort(Comparator.comparingDouble(Score::total).reversed()); // stable: ties keep chain order
    return new RouteDecision(scores, excluded);
  }

  /** The score {@code target} would get for {@code request} now, candidate or not. */
  public Score score(Target target, RouteRequest request) {
    return Score.of(target, statistics.read(target), prices.priceOf(target.model()).orElse(null),
        taskFit.fit(target.model(), request.task()), request);
  }

  private Exclusion.Reason exclusion(Target target, RouteRequest request) {
    if (circuits.stateOf(target) == CircuitState.OPEN) {
      return Exclusion.Reason.CIRCUIT_OPEN;
    }
    if (cooling.coolingDown(target)) {
      return Exclusion.Reason.COOLING_DOWN;
    }
    if (!pacing.covers(target, request.inputTokens())) {
      return Exclusion.Reason.RATE_LIMITED;
    }
    return null;
  }
}
