package dev.levee.cli;

import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigException;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code levee serve --config levee.yaml}: runs the gateway until stopped. */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Run the gateway: an Anthropic Messages API endpoint with retries, breakers and fallbacks.")
final class ServeCommand implements Callable<Integer> {

  @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE", description = "The YAML config (see docs/configuration.md).")
  Path config;

  @Option(names = "--port", paramLabel = "PORT", description = "Overrides server.port.")
  Integer port;

  @Override
  public Integer call() throws Exception {
    GatewayConfig loaded;
    try {
      loaded = new ConfigLoader().load(config);
    } catch (ConfigException e) {
      System.err.println("levee: bad config: " + e.getMessage());
      return 2;
    }
    if (port != null) {
      loaded = loaded.withPort(port);
    }
    Gateway started;
    try {
      started = Gateway.start(loaded);
    } catch (java.io.IOException e) {
      System.err.println("levee: cannot listen on " + loaded.server().host() + ":" + loaded.server().port() + ": "
          + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()));
      return 1;
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
