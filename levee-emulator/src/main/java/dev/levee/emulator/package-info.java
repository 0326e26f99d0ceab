/**
 * A faithful, misbehaving Anthropic Messages API for tests, chaos drills and demos.
 *
 * <p>Public API: {@link dev.levee.emulator.Emulator} (start, port, base URL, log, reset, close),
 * {@link dev.levee.emulator.EmulatorOptions}, {@link dev.levee.emulator.Scenario} with its
 * phases, {@link dev.levee.emulator.ScenarioException} and {@link dev.levee.emulator.LogEntry}.
 * Everything else is package-private implementation. The module README documents the faults by
 * model name, the continuation rule, the log format and the scenario format.
 */
package dev.levee.emulator;
