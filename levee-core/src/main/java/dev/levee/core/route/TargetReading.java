package dev.levee.core.route;

import java.time.Duration;

/**
 * What the router's statistics say of one target now, for scores and health reports.
 *
 * @param success the ageing success EMA, 0..1 (1.0 for a target never called)
 * @param p95 the p95 latency of successes in the window, or the typical latency when unmeasured
 * @param measured whether {@code p95} comes from measurements in the window
 * @param outcomes how many outcomes have been recorded since start
 */
public record TargetReading(double success, Duration p95, boolean measured, long outcomes) {}
