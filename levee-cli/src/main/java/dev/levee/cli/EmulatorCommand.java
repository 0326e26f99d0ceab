package dev.levee.cli;

import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import dev.levee.emulator.ScenarioException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code levee emulator --port 9010 [--scenario FILE]}: a misbehaving Anthropic API for drills. */
@Command(name = "emulator", mixinStandardHelpOptions = true,
    description = {"Run the Anthropic API emulator: real shapes, deterministic answers, faults chosen by model name",
        "(emu-529, emu-429-ra2, emu-cut-5, ...; see levee-emulator/README.md)."})
final class EmulatorCommand implements Callable<Integer> {

  @Option(names = "--port", defaultValue = "9010", description = "Port to listen on (default ${DEFAULT-VALUE}; 0 for any).")
  int port;

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--scenario", paramLabel = "FILE", description = "A YAML file of timed fault phases per model.")
  Path scenario;

  @Override
  public Integer call() throws Exception {
    EmulatorOptions.Builder options = EmulatorOptions.builder().host(host).port(port);
    if (scenario != null) {
      try {
        options.scenario(Scenario.load(scenario));
      } catch (ScenarioException e) {
        System.err.println("levee: bad scenario: " + e.getMessage());
        return 2;
      } catch (java.io.IOException e) {
        System.err.println("levee: cannot read the scenario " + scenario + ": " + e.getMessage());
        return 2;
      }
    }
    Emulator started;
    try {
      started = Emulator.start(options.build());
    } catch (java.io.UncheckedIOException e) {
      System.err.println("levee: cannot listen on " + host + ":" + port + ": "
          + (e.getCause().getCause() != null ? e.getCause().getCause().getMessage() : e.getCause().getMessage()));
      return 1;
    }
    try (Emulator emulator = started) {
      System.err.println("Levee emulator listening on " + emulator.baseUrl());
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
      stopped.await();
    }
    return 0;
  }
}
