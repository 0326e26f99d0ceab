package dev.levee.gateway.cluster;

/**
 * Whether this replica currently shares its state, for {@code /health} and {@code /metrics}.
 *
 * @param mode OFF (no {@code cluster:} config), SHARED (Redis answers), or LOCAL (Redis is away:
 *     this replica decides alone until it rejoins by itself)
 * @param redis the Redis endpoint as {@code host:port} (never a password), or empty when OFF
 * @param reason why the replica is LOCAL (the last Redis error), or empty
 * @param switches how many times the mode changed since start
 * @param localAnswers shared operations answered from local state because Redis was away
 */
public record ClusterStatus(Mode mode, String redis, String reason, long switches, long localAnswers) {

  /** Where this replica's soft state comes from. */
  public enum Mode { OFF, SHARED, LOCAL }

  /** Whether state is shared right now. */
  public boolean shared() {
    return mode == Mode.SHARED;
  }
}
