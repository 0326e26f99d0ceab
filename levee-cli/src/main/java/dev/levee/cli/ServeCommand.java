package dev.levee.cli;

import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigException;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code levee serve --config levee.yaml}: runs the gateway until stopped; {@code levee gateway} is
 * the same command (what users of other gateways type), and its help says so: picocli's usage line
 * names {@code serve} whichever name was typed. A bad config, port or address is one line
 * on stderr and exit code 2; a port already taken, exit code 1.
 */
@Command(name = "serve", aliases = "gateway", mixinStandardHelpOptions = true,
    description = {"Run the gateway: an Anthropic Messages API endpoint with retries, breakers and fallbacks.",
        // picocli names a command by its first name in the usage line whichever name was typed
        // (remkop/picocli#2104), so the help says the other name here.
        "levee gateway is the same command (an alias of levee serve)."})
final class ServeCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE", description = "The YAML config (see docs/configuration.md).")
  Path config;

  @Option(names = "--port", paramLabel = "PORT", converter = PortConverter.class,
      description = "Overrides server.port (0 to 65535; 0 picks a free port).")
  Integer port;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    GatewayConfig loaded;
    try {
      loaded = new ConfigLoader().load(config);
    } catch (ConfigException e) {
      err.println("levee: bad config: " + e.getMessage());
      return 2;
    }
    if (port != null) {
      loaded = loaded.withPort(port);
    }
    Gateway started;
    try {
      started = Gateway.start(loaded);
    } catch (java.io.IOException | java.nio.channels.UnresolvedAddressException e) {
      err.println("levee: cannot listen on " + loaded.server().host() + ":" + loaded.server().port() + ": "
          + OneLineErrors.reason(e));
      return OneLineErrors.badAddress(e) ? 2 : 1;
    }
    try (Gateway gateway = started) {
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          gateway.close();
        } catch (Exception ignored) {
          // shutting down
        }
      }));
      gateway.join();
    }
    return 0;
  }
}
