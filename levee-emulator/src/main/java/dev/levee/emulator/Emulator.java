package dev.levee.emulator;

import dev.levee.anthropic.server.RequestGuard;
import dev.levee.anthropic.server.VirtualThreadServer;
import java.io.UncheckedIOException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.eclipse.jetty.server.Server;

/**
 * A faithful, misbehaving Anthropic Messages API on a local port.
 *
 * <p>Serves {@code POST /v1/messages} (JSON and SSE), {@code POST /v1/messages/count_tokens} and
 * {@code GET /v1/models} in the API's shapes, with deterministic answers (a function of the
 * conversation, not of the model name), prefill and continuation support, tool use and thinking.
 * Faults are chosen by model name ({@code emu-529}, {@code emu-cut-5}, ...) or scripted by a
 * {@link Scenario}; every request is recorded in {@link #log()}. The module README lists every
 * fault, the log format and the scenario format.
 *
 * <p>Control endpoints: {@code GET /_emulator/log} (the log as JSON), {@code POST
 * /_emulator/reset} (same as {@link #reset()}) and {@code POST /_emulator/scenario} (a scenario in
 * the file format, played from a reset: how {@code levee drill} switches a storm on and off).
 *
 * <p>Thread-safe. Handlers run on virtual threads.
 */
public final class Emulator implements AutoCloseable {

  /** {@code /_emulator/*} is never limited: a test can read the log while the API is saturated. */
  private static final RequestGuard.Lanes CONTROL_LANE = new RequestGuard.Lanes(p -> p.startsWith("/_emulator/"), null);

  private final EmulatorState state;
  private final Server server;
  private final String host;

  private Emulator(EmulatorState state, Server server, String host) {
    this.state = state;
    this.server = server;
    this.host = host;
  }

  /**
   * Starts an emulator.
   *
   * @throws UncheckedIOException when the address cannot be bound
   */
  public static Emulator start(EmulatorOptions options) {
    EmulatorState state = new EmulatorState(options);
    Server server = VirtualThreadServer.create(options.host(), options.port(), Duration.ofMinutes(5),
        "levee-emulator", new EmulatorHandler(state), options.limits(), CONTROL_LANE);
    server.setStopTimeout(0); // no graceful drain: an emulator stops at once, closing kept-alive connections
    try {
      server.start();
    } catch (IOException e) {
      stopQuietly(server);
      throw new UncheckedIOException("cannot start the emulator on " + options.host() + ":" + options.port(), e);
    } catch (Exception e) {
      stopQuietly(server);
      throw new IllegalStateException("cannot start the emulator", e);
    }
    return new Emulator(state, server, options.host());
  }

  /** The port it listens on (the chosen one when the options said 0). */
  public int port() {
    return VirtualThreadServer.port(server);
  }

  /**
   * The base URL to give a client, e.g. {@code http://127.0.0.1:41234} (no trailing slash). A
   * wildcard bind address is reported as {@code 127.0.0.1}.
   */
  public String baseUrl() {
    String shown = host.equals("0.0.0.0") || host.equals("::") || host.isEmpty() ? "127.0.0.1" : host;
    if (shown.contains(":")) {
      shown = "[" + shown + "]";
    }
    return "http://" + shown + ":" + port();
  }

  /** Every {@code /v1} request since start or the last reset, oldest first (at most 10,000). */
  public List<LogEntry> log() {
    return state.log.snapshot();
  }

  /**
   * Waits until the log satisfies {@code condition}, e.g. until the emulator has noticed that a
   * client went away.
   *
   * @return the first log snapshot that satisfied it
   * @throws TimeoutException when it did not within {@code timeout} (the message shows the log)
   */
  public List<LogEntry> awaitLog(Predicate<? super List<LogEntry>> condition, Duration timeout)
      throws InterruptedException, TimeoutException {
    return state.log.await(condition, timeout);
  }

  /** Clears the log and the first-attempt memory, and restarts scenario time. */
  public void reset() {
    state.reset();
  }

  /** Stops listening, releases hung and stalled requests and closes every connection at once. */
  @Override
  public void close() {
    state.closing.complete(null);
    stopQuietly(server);
  }

  private static void stopQuietly(Server server) {
    try {
      server.stop();
    } catch (Exception e) {
      // stopping is best effort: the port is released either way
    }
  }
}
