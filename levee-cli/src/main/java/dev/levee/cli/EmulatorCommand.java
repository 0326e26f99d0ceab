package dev.levee.cli;

import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import dev.levee.emulator.ScenarioException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code levee emulator --port 9010 [--scenario FILE] [--model NAME]… [--lenient] [--ping-interval D]}: a misbehaving
 * Anthropic API for drills, faithful by default ({@link EmulatorOptions#faithful()}: it refuses a
 * request without {@code anthropic-version} and a model name it does not know, as the API does).
 * A bad port, address or scenario is one line on stderr and exit code 2; a port already taken,
 * exit code 1.
 */
@Command(name = "emulator", mixinStandardHelpOptions = true,
    header = "Run the Anthropic API emulator: real shapes, deterministic answers, faults chosen by model name.",
    description = "Faults are chosen by model name (emu-529, emu-429-ra2, emu-cut-5, ...; see "
        + "levee-emulator/README.md), or by a scenario file (--scenario).")
final class EmulatorCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Option(names = "--port", defaultValue = "9010", converter = PortConverter.class,
      description = "Port to listen on (default ${DEFAULT-VALUE}; 0 for any).")
  int port;

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--scenario", paramLabel = "FILE", description = "A YAML file of timed fault phases per model.")
  Path scenario;

  @Option(names = "--model", paramLabel = "NAME", description = "A model name to answer besides the listed ones "
      + "(GET /v1/models), the emu-* fault names and the names the scenario gives; repeatable. Any other name gets "
      + "404 not_found_error, as from the API.")
  List<String> models = new ArrayList<>();

  @Option(names = "--lenient", description = "Answer any model name, and requests without anthropic-version (the API "
      + "refuses both), as the emulator embedded in Levee's tests does.")
  boolean lenient;

  @Option(names = "--ping-interval", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "How often a stalled stream (emu-stall-<n>) sends a ping (default 5s; 0 for silence). A small "
          + "one (0.01ms) makes an endless stream of pings: a client that stops reading fills its socket buffers, as "
          + "to try the gateway's server.send-timeout by hand.")
  Duration pingInterval;

  /** The options the flags ask for, before the scenario. */
  EmulatorOptions.Builder options() {
    EmulatorOptions.Builder options = EmulatorOptions.builder().host(host).port(port).faithful(!lenient).models(models);
    return pingInterval == null ? options : options.pingInterval(pingInterval);
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    EmulatorOptions.Builder options = options();
    if (scenario != null) {
      Scenario loaded = ScenarioFiles.load(scenario, err);
      if (loaded == null) {
        return 2;
      }
      options.scenario(loaded);
    }
    Emulator started;
    try {
      started = Emulator.start(options.build());
    } catch (java.io.UncheckedIOException | java.nio.channels.UnresolvedAddressException e) {
      err.println("levee: cannot listen on " + host + ":" + port + ": " + OneLineErrors.reason(e));
      return OneLineErrors.badAddress(e) ? 2 : 1;
    }
    try (Emulator emulator = started) {
      err.println("Levee emulator listening on " + emulator.baseUrl());
      err.flush();
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
      stopped.await();
    }
    return 0;
  }
}
