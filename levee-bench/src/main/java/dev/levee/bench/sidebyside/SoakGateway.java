package dev.levee.bench.sidebyside;

import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
import java.util.Map;

/**
 * The gateway of {@link Soak}, in its own JVM (so {@code jcmd}, {@code /proc/<pid>} and its heap
 * are Levee's alone): {@link #CONFIG} in front of the emulator whose base URL is the first
 * argument. Prints {@code LEVEE <base url>} once listening; stops when its standard input closes.
 * Its embedded job store (idempotency keys) is in its working folder's {@code levee-data/}.
 */
public final class SoakGateway {

  /**
   * One alias per kind of upstream health, as {@code SharedGatewaySoakTest} has them — healthy, an
   * overloaded primary absorbed by its fallback, a first attempt cut mid-stream and recovered, a
   * dead target — and one routed by score; three features of different priorities. The cache is
   * bounded at 8 MiB (64 MiB by default) so that it is full within the warm-up: a cache still
   * filling would look like a leak in the second half.
   */
  static final String CONFIG = """
      server: { port: 0 }
      upstreams: { emu: { url: "${EMU}" } }
      models:
        healthy: { chain: [emu/emu-ok] }
        absorbed: { chain: [emu/emu-529, emu/claude-haiku-4-5] }
        recovered: { chain: [emu/emu-cut-4, emu/claude-sonnet-4-5] }
        dead: { chain: [emu/emu-503] }
        scored: { chain: [emu/claude-sonnet-4-5, emu/claude-haiku-4-5], route: score }
      features:
        chat: { priority: critical, hot-ttl: 1m }
        search: { priority: standard }
        digest: { priority: optional, static-text: "The digest is resting." }
      policy:
        deadline: 10s
        attempt-timeout: 5s
        retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms }
        stream: { ttft-timeout: 3s, idle-timeout: 2s }
      cache: { max-bytes: 8MiB }
      """;

  private SoakGateway() {}

  public static void main(String[] args) throws Exception {
    try (Gateway gateway = Gateway.start(new ConfigLoader(Map.of("EMU", args[0])::get).parse(CONFIG, "soak"))) {
      System.out.println("LEVEE " + gateway.baseUrl());
      System.out.flush();
      while (System.in.read() >= 0) {
        // wait for the parent to close our input
      }
    }
  }
}
