package dev.levee.cli.drill;

import dev.levee.core.time.ManualClock;
import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.GatewayClock;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.jobs.ThrowAwayStore;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The emulator and gateway a drill runs against: embedded ({@link #embedded(double)}) or a running
 * pair ({@link #running(URI, URI, double)}). The drill talks to both over HTTP either way.
 *
 * @param gateway the gateway's base URL
 * @param emulator the emulator's base URL (its {@code /_emulator/*} control endpoints)
 * @param clock the drill's time
 * @param requests runs each drill request: on the drill's thread when time is virtual (a request
 *     takes no drill time), on its own virtual thread against a running pair
 * @param description how the report names the pair
 * @param closer stops what the pair started
 */
record Pair(URI gateway, URI emulator, DrillClock clock, Executor requests, String description, AutoCloseable closer)
    implements AutoCloseable {

  /** The embedded pair's gateway: one alias on the emulator's model, the default feature, tiers as shipped. */
  static final String CONFIG = """
      server: { port: 0 }
      upstreams:
        emu: { url: "${EMU}" }
      models:
        chat:
          chain: [emu/claude-main]
      features:
        default:
          priority: standard
      policy:
        deadline: 30s
        attempt-timeout: 10s
        retry: { max-retries: 1, base-delay: 100ms, max-delay: 1s }
        retry-budget: { max: 100, ratio: 0.2 }
      """;

  /** The alias {@link #CONFIG} serves. */
  static final String EMBEDDED_ALIAS = "chat";

  /**
   * Starts an emulator and a gateway in this process on one virtual clock, which the drill moves
   * at most {@code speed} times as fast as real time.
   */
  static Pair embedded(double speed) throws Exception {
    ManualClock clock = new ManualClock();
    Emulator emulator = Emulator.start(EmulatorOptions.builder().ticker(clock).sleeper(clock)
        .timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).seed(11).build());
    // a throw-away job store: levee-data/ may be held by a gateway serving in this directory
    ThrowAwayStore store = null;
    try {
      store = ThrowAwayStore.create("levee-drill");
      var config = new ConfigLoader(Map.of("EMU", emulator.baseUrl())::get)
          .parse(CONFIG + store.queueSection(), "levee drill (embedded)");
      GatewayClock virtual = new GatewayClock(clock, clock, InstantSource.system(), new SplittableRandom(5), clock);
      Gateway gateway = Gateway.start(config, virtual);
      ThrowAwayStore started = store;
      return new Pair(gateway.baseUrl(), URI.create(emulator.baseUrl()), DrillClock.virtual(clock, speed),
          Runnable::run, "the embedded emulator and gateway (virtual time)", () -> {
            try (started; emulator) { // the store's folder goes last, once its gateway let go of it
              gateway.close();
            }
          });
    } catch (Exception | Error e) {
      emulator.close();
      if (store != null) {
        store.close();
      }
      throw e;
    }
  }

  /** A running gateway and the emulator behind it, on the wall clock ({@code speed} drill s per real s). */
  static Pair running(URI gateway, URI emulator, double speed) {
    ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor();
    return new Pair(trim(gateway), trim(emulator), DrillClock.wall(speed), requests,
        "the gateway at " + gateway + " and the emulator at " + emulator, requests::shutdownNow);
  }

  /** Waits, up to {@code max}, for requests still in flight (none when they run on the drill's thread). */
  void awaitRequests(Duration max) throws InterruptedException {
    if (requests instanceof ExecutorService service) {
      service.shutdown();
      service.awaitTermination(max.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }
  }

  private static URI trim(URI uri) {
    String text = uri.toString();
    return URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
  }

  @Override
  public void close() throws Exception {
    closer.close();
  }
}
