package dev.levee.gateway.config;

import dev.levee.core.tier.Tier;

/** Whether a request's extended thinking reaches the upstream ({@code thinking}). */
public enum ThinkingPolicy {
  /** The default: kept at T0, removed below it. */
  T0,
  /** Always removed. */
  NEVER,
  /** Kept at every tier (critical features only). */
  ALWAYS;

  /** Whether thinking is kept for a request admitted at {@code tier}. */
  public boolean keeps(Tier tier) {
    return this == ALWAYS || (this == T0 && tier == Tier.T0);
  }
}
