package dev.levee.emulator;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Everything one emulator shares across requests: options, the answer generator, ids, the attempt
 * log and memory, the scenario and its epoch. Thread-safe.
 */
final class EmulatorState {

  final EmulatorOptions options;
  final AnswerGenerator generator;
  final Ids ids;
  final RateLimitHeaders rateLimits = new RateLimitHeaders();
  final RateLimitEnforcer limits = new RateLimitEnforcer();
  final AttemptMemory memory = new AttemptMemory();
  final RequestLog log = new RequestLog();
  final ScenarioRuntime scenario;
  /** Completes when the emulator closes, releasing hung and stalled requests. */
  final CompletableFuture<Void> closing = new CompletableFuture<>();
  private volatile long epochNanos;

  EmulatorState(EmulatorOptions options) {
    this.options = options;
    this.generator = new AnswerGenerator(options.seed());
    this.ids = new Ids(options.seed());
    this.scenario = new ScenarioRuntime(options.scenario());
    this.epochNanos = options.ticker().nanos();
  }

  /** Time since start or the last reset, on the options' ticker. */
  Duration elapsed() {
    return Duration.ofNanos(options.ticker().nanos() - epochNanos);
  }

  /** Plays {@code next} from a fresh start ({@link #reset()}): how a drill switches a storm on and off. */
  synchronized void play(Scenario next) {
    scenario.replace(next);
    reset();
  }

  /** Clears the log, first-attempt memory and rate-limit windows, and restarts scenario time. */
  synchronized void reset() {
    log.clear();
    memory.clear();
    scenario.reset();
    limits.clear();
    epochNanos = options.ticker().nanos();
  }
}
