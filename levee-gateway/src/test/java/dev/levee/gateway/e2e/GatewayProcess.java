package dev.levee.gateway.e2e;

import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
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
}
