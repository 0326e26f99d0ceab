package dev.levee.bench.sidebyside;

import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
import java.util.List;
import java.util.Map;

/**
 * Levee as its own process for the side-by-side benchmark (so {@code /proc} gives its CPU alone):
 * a gateway with one alias, {@code fast}, on the upstream given as the first argument, and the
 * {@code server:} keys given as the optional second (YAML, e.g. {@code "max-concurrent: 10000"}). Prints
 * {@code LEVEE <base url>} once listening; stops when its standard input closes.
 */
public final class LeveeProcess {

  /**
   * The JVM flags the {@code levee} launcher runs Levee with ({@code -Djdk.pollerMode=1
   * -XX:MaxHeapFreeRatio=100}); the benchmarks start Levee's and the floor proxy's JVMs with them
   * too, before their {@code --levee-jvm} options, which may override them.
   */
  static final List<String> LAUNCHER_FLAGS = List.of("-Djdk.pollerMode=1", "-XX:MaxHeapFreeRatio=100");

  private LeveeProcess() {}

  public static void main(String[] args) throws Exception {
    try (Gateway gateway = Gateway.start(new ConfigLoader(Map.of("UP", args[0])::get).parse("""
        server: { port: 0%s }
        upstreams: { up: { url: "${UP}" } }
        models: { fast: { chain: [up/claude-fast] } }
        """.formatted(args.length > 1 ? ", " + args[1] : ""), "side-by-side"))) {
      System.out.println("LEVEE " + gateway.baseUrl());
      System.out.flush();
      while (System.in.read() >= 0) {
        // wait for the parent to close our input
      }
    }
  }
}
