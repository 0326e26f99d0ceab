package dev.levee.cli.drill;

/**
 * The gateway's {@code /health} at the start of one drill second.
 *
 * @param second the drill second
 * @param tier the feature's tier as 0..3 (T0..T3), or -1 when {@code /health} did not say
 * @param budget retry-budget tokens left, or NaN
 */
record Sample(int second, int tier, double budget) {}
