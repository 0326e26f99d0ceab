package dev.levee.bench.sidebyside;

import dev.levee.anthropic.server.VirtualThreadServer;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
import java.net.URI;
import java.util.Map;
import org.eclipse.jetty.server.Server;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The set-up {@link GatewayJsonBenchmark} and {@link GatewayStreamBenchmark} share: a {@link
 * FixedUpstream} of 30 deltas, the proxy in this JVM — {@code levee} (one alias {@code fast} on
 * that upstream, as {@link LeveeProcess} configures it) or {@code jetty} (the {@link FloorProxy}
 * floor: Levee's server, a bare forwarding handler) — and one kept-alive {@link LoopbackClient}
 * sending the side-by-side's request, checked once before measuring.
 */
@State(Scope.Thread)
public abstract class ThroughAProxy {

  @Param({"levee", "jetty"})
  public String proxy;

  private FixedUpstream upstream;
  private Gateway gateway;
  private Server floor;
  /** The client the benchmark method asks through the proxy. */
  protected LoopbackClient client;

  /** Whether the request asks for a stream. */
  abstract boolean asksForAStream();

  /** Whether {@code answer}, the first through the proxy, is what the benchmark expects. */
  abstract boolean whole(LoopbackClient.Answer answer);

  @Setup(Level.Trial)
  public void start() throws Exception {
    upstream = FixedUpstream.start(30);
    URI base;
    if (proxy.equals("levee")) {
      gateway = Gateway.start(new ConfigLoader(Map.of("UP", upstream.baseUrl().toString())::get).parse("""
          server: { port: 0 }
          upstreams: { up: { url: "${UP}" } }
          models: { fast: { chain: [up/claude-fast] } }
          """, getClass().getSimpleName()));
      base = URI.create(gateway.baseUrl().toString().replaceAll("/$", ""));
    } else {
      floor = FloorProxy.jettyIn(upstream.baseUrl());
      base = URI.create("http://127.0.0.1:" + VirtualThreadServer.port(floor));
    }
    client = new LoopbackClient(base, SideBySide.body("fast", asksForAStream()));
    if (!whole(client.exchange())) {
      throw new IllegalStateException("the first answer through " + proxy + " is not whole");
    }
  }

  @TearDown(Level.Trial)
  public void stop() throws Exception {
    client.close();
    if (gateway != null) {
      gateway.close();
    }
    if (floor != null) {
      floor.stop();
    }
    upstream.close();
  }
}
