package dev.levee.gateway.e2e;

import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A gateway in a process of its own, for tests that kill it: {@code GatewayProcess config.yaml}
 * prints {@code PORT <n>} once it listens, then serves until killed.
 */
public final class GatewayProcess {

  private GatewayProcess() {}

  public static void main(String[] args) throws Exception {
    Gateway gateway = Gateway.start(new ConfigLoader().load(Path.of(args[0])));
    System.out.println("PORT " + gateway.port());
    System.out.flush();
    gateway.join();
  }

  /**
   * Starts a gateway process on {@code config}, with this test run's classpath. Its temp files
   * (SQLite's native library, which a killed process never deletes) go to {@code config}'s folder:
   * give it one the test deletes ({@code @TempDir}).
   */
  public static Process launch(Path config) throws Exception {
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    return new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED",
        "-Djava.io.tmpdir=" + config.toAbsolutePath().getParent(), "-cp", classpath,
        GatewayProcess.class.getName(), config.toString())
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
  }

  /** Waits for the process to print its port; throws when it ends first. */
  public static int port(Process process) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line;
    while ((line = out.readLine()) != null) {
      if (line.startsWith("PORT ")) {
        return Integer.parseInt(line.substring(5).strip());
      }
    }
    throw new IllegalStateException("the gateway process ended before it listened");
  }
}
