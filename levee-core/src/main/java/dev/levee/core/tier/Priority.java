package dev.levee.core.tier;

/**
 * How much a feature matters, from its configuration ({@code critical}, {@code standard},
 * {@code optional}). Only {@link #OPTIONAL} features are taken to {@link Tier#T3} by a burning
 * error budget; see {@link TierDecider}.
 */
public enum Priority {
  /** Must keep answering well (e.g. the product's main assistant). */
  CRITICAL,
  /** The default. */
  STANDARD,
  /** Nice to have (suggestions, summaries): the first to be switched to a static answer. */
  OPTIONAL
}
