package dev.levee.core.breaker;

/**
 * One state change of a circuit breaker.
 *
 * @param breaker the breaker's name (usually the target id, e.g. {@code anthropic/claude-opus-4-6})
 * @param from the state before
 * @param to the state after
 * @param reason why, in words for logs ("5 failures in 30s", "trial failed", ...)
 * @param atNanos the breaker's ticker reading when it happened
 */
public record Transition(String breaker, CircuitState from, CircuitState to, String reason, long atNanos) {}
