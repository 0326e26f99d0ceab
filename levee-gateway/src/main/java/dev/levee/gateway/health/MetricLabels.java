package dev.levee.gateway.health;

import dev.levee.core.chain.Target;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.config.GatewayConfig;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The bounded label values of Levee's metrics: configured targets, aliases, features and models
 * keep their names; anything a client invents is folded ({@code upstream/*}, {@code other}), so
 * the number of series stays bounded however clients name models. Immutable and thread-safe.
 *
 * @param targets the configured targets (every alias's chain and every feature's reduced target)
 * @param aliases the configured aliases
 * @param features the configured features, {@code default} included
 * @param models the models of the configured targets
 */
public record MetricLabels(Set<Target> targets, Set<String> aliases, Set<String> features, Set<String> models) {

  /** The label of a request refused before its alias or feature was known. */
  public static final String NONE = "-";

  /** The label of an alias, feature or model that is not configured. */
  public static final String OTHER = "other";

  public MetricLabels {
    targets = Set.copyOf(targets);
    aliases = Set.copyOf(aliases);
    features = Set.copyOf(features);
    models = Set.copyOf(models);
  }

  /** The labels of {@code config}, whose chains hold {@code configuredTargets}. */
  public static MetricLabels of(GatewayConfig config, Set<Target> configuredTargets) {
    Set<Target> targets = new LinkedHashSet<>(configuredTargets);
    config.features().values().stream()
        .filter(f -> f.reduced() != null && f.reduced().target() != null)
        .forEach(f -> targets.add(new Target(f.reduced().target().upstream(), f.reduced().target().model())));
    Set<String> features = new LinkedHashSet<>(config.features().keySet());
    features.add(Feature.DEFAULT_NAME);
    Set<String> models = new LinkedHashSet<>();
    targets.forEach(t -> models.add(t.model()));
    return new MetricLabels(targets, config.models().keySet(), features, models);
  }

  /** The target's id when configured, else {@code upstream/*}. */
  public String target(Target target) {
    return targets.contains(target) ? target.id() : target.upstream() + "/*";
  }

  /** The alias when configured; {@value #NONE} for null; else {@value #OTHER}. */
  public String alias(String alias) {
    return alias == null ? NONE : aliases.contains(alias) ? alias : OTHER;
  }

  /** The feature when configured; {@value #NONE} for null; else {@value #OTHER}. */
  public String feature(String feature) {
    return feature == null ? NONE : features.contains(feature) ? feature : OTHER;
  }

  /** The model when some configured target uses it, else {@value #OTHER}. */
  public String model(String model) {
    return model != null && models.contains(model) ? model : OTHER;
  }

  /** {@code 2xx} … {@code 5xx} for an HTTP status. */
  public static String statusClass(int status) {
    return switch (status / 100) {
      case 1 -> "1xx";
      case 2 -> "2xx";
      case 3 -> "3xx";
      case 4 -> "4xx";
      default -> "5xx";
    };
  }
}
