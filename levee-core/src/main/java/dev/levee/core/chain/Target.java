package dev.levee.core.chain;

import java.util.Objects;

/**
 * One model on one upstream deployment: the unit that has its own circuit breaker.
 *
 * @param upstream the upstream's configured name (e.g. {@code anthropic})
 * @param model the model name sent to that upstream (e.g. {@code claude-opus-4-6})
 */
public record Target(String upstream, String model) {

  public Target {
    Objects.requireNonNull(upstream, "upstream");
    Objects.requireNonNull(model, "model");
  }

  /**
   * Parses {@code upstream/model}; the model may itself contain slashes, but neither part holds
   * whitespace or a comma (no model id does: {@code [a/x b/y]} is one YAML string, not a list).
   *
   * @throws IllegalArgumentException when {@code spec} is not of that form
   */
  public static Target parse(String spec) {
    int slash = spec.indexOf('/');
    if (slash <= 0 || slash == spec.length() - 1) {
      throw new IllegalArgumentException("a target is written upstream/model, was '" + spec + "'");
    }
    if (spec.chars().anyMatch(c -> c == ',' || Character.isWhitespace(c))) {
      throw new IllegalArgumentException("a target is one upstream/model without spaces or commas, was '" + spec
          + "' (a list of targets is written [up/a, up/b])");
    }
    return new Target(spec.substring(0, slash), spec.substring(slash + 1));
  }

  /** {@code upstream/model}, the id used in headers, logs and metrics. */
  public String id() {
    return upstream + "/" + model;
  }

  @Override
  public String toString() {
    return id();
  }
}
