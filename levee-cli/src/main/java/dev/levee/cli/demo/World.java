package dev.levee.cli.demo;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigException;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.jobs.ThrowAwayStore;
import java.util.List;
import java.util.Map;

/**
 * One side of the demo: an emulator going through the incident, and a gateway in front of it,
 * configured with resilience on or off.
 *
 * <p>The incident's calls fail at once (529), never slowly, so no timeout has anything to catch in
 * the demo; what a timeout would catch is the machine itself: on a CPU-starved box (one core shared
 * with four busy loops) the fallback's calls ran past the 5 s attempt timeout, its circuit opened
 * and requests failed that the incident had spared. A stream's 15 s TTFT timeout can fire the same
 * way, and its recovery is one more upstream call. So both sides' timeouts (deadline, attempt,
 * stream, header) are 60–120 s: far above any queueing, and alike on both sides, so the figures
 * measure resilience alone.
 */
final class World implements AutoCloseable {

  /** The model the incident strikes: the first of the chain below. */
  static final String PRIMARY = "claude-opus-4-6";
  /** The alias the load asks for; both configs define it. */
  static final String ALIAS = "smart";

  private static final String RESILIENT = """
      server: { port: 0, header-timeout: 60s }
      upstreams:
        anthropic: { url: "${EMU}" }
      models:
        smart:
          chain: [anthropic/claude-opus-4-6, anthropic/claude-haiku-4-5]
      policy:                  # timeouts far above CPU queueing: the incident's calls fail fast, never slowly
        deadline: 120s
        attempt-timeout: 60s
        stream: { ttft-timeout: 60s, idle-timeout: 60s, recovery-window: 60s }
        retry: { max-retries: 2, base-delay: 100ms, max-delay: 1s }
        breaker: { failures: 5, window: 10s, open-for: 4s }
        retry-budget: { max: 50, ratio: 0.25 }
      tiers:                   # compressed like the incident: a real deployment keeps the defaults
        window: 10s
        evaluate-every: 1s
        healthy-for: 5s
        slo: 0.9
      """;

  private static final String BASELINE = """
      server: { port: 0, header-timeout: 60s }
      upstreams:
        anthropic: { url: "${EMU}" }
      models:
        smart:
          chain: [anthropic/claude-opus-4-6]
      policy:                  # the same timeouts as with Levee: only the resilience differs
        deadline: 120s
        attempt-timeout: 60s
        stream: { ttft-timeout: 60s, idle-timeout: 60s, recovery-window: 60s }
        retry: { max-retries: 0 }
        breaker: off
      """;

  final Emulator emulator;
  final Gateway gateway;
  private final ThrowAwayStore store;

  private World(Emulator emulator, Gateway gateway, ThrowAwayStore store) {
    this.emulator = emulator;
    this.gateway = gateway;
    this.store = store;
  }

  static World start(String name, boolean resilient, Scenario incident) throws Exception {
    Emulator emulator = Emulator.start(EmulatorOptions.builder().scenario(incident).build());
    ThrowAwayStore store = null;
    try {
      store = ThrowAwayStore.create("levee-demo"); // a demo keeps no work: its job store is a throw-away one
      var config = new ConfigLoader(Map.of("EMU", emulator.baseUrl())::get)
          .parse((resilient ? RESILIENT : BASELINE) + store.queueSection(), name + " demo config");
      return new World(emulator, Gateway.start(config), store);
    } catch (ConfigException | java.io.IOException | RuntimeException e) {
      emulator.close();
      if (store != null) {
        store.close();
      }
      throw e;
    }
  }

  /** Restarts the emulator's incident clock and log: time zero of the demo. */
  void reset() {
    emulator.reset();
  }

  CircuitState primaryCircuit() {
    return gateway.chain().breakers().of(new Target("anthropic", PRIMARY)).state();
  }

  String tier() {
    return gateway.tiers().tier("default").name();
  }

  double budgetLeft() {
    return gateway.chain().budgets().lowest().remaining(); // the most drained bucket: the failing primary's here
  }

  /** Upstream calls so far, as the emulator saw them. */
  List<LogEntry> upstreamCalls() {
    return emulator.log().stream().filter(e -> "/v1/messages".equals(e.path())).toList();
  }

  @Override
  public void close() throws Exception {
    try (store; emulator) { // the store's folder goes last, once the gateway let go of it
      gateway.close();
    }
  }
}
