package dev.levee.core.route;

import dev.levee.core.chain.Target;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the router decided for one request.
 *
 * @param ranked the candidates, best score first; equal scores keep chain order
 * @param excluded the targets that were not candidates, in chain order, with the reason
 */
public record RouteDecision(List<Score> ranked, List<Exclusion> excluded) {

  public RouteDecision {
    ranked = List.copyOf(ranked);
    excluded = List.copyOf(excluded);
  }

  /** The best candidate, or empty when every target was excluded. */
  public Optional<Target> chosen() {
    return ranked.isEmpty() ? Optional.empty() : Optional.of(ranked.getFirst().target());
  }

  /**
   * This request's chain: the candidates in score order, then the excluded targets in chain order.
   * Excluded targets stay at the end so that the execute stage, which asks each breaker and
   * cooldown again, can still reach one whose circuit or cooldown ends during the request (and so
   * that a request whose every target is excluded fails as the fixed chain would).
   */
  public List<Target> order() {
    List<Target> order = new ArrayList<>(ranked.size() + excluded.size());
    ranked.forEach(score -> order.add(score.target()));
    excluded.forEach(exclusion -> order.add(exclusion.target()));
    return order;
  }

  /**
   * The candidates and their scores, best first, as {@code x-levee-route} carries them:
   * {@code claude-sonnet-4-6=88.4;claude-opus-4-6=70.8}. Targets are named by model, or by
   * {@code upstream/model} when two candidates share a model name.
   */
  public String explain() {
    Set<String> models = new HashSet<>();
    boolean modelsUnique = ranked.stream().allMatch(score -> models.add(score.target().model()));
    return ranked.stream()
        .map(score -> score.label(modelsUnique ? score.target().model() : score.target().id()))
        .collect(Collectors.joining(";"));
  }
}
