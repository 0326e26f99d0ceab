package dev.levee.bench.sidebyside;

import dev.levee.anthropic.server.VirtualThreadServer;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Server;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The JSON twin of {@link GatewayStreamBenchmark}: one JSON request through a proxy, as the
 * side-by-side benchmark sends it (its request, its {@link FixedUpstream}, one kept-alive
 * connection of the {@link LoopbackClient}), the proxy in this JVM: {@code levee} or {@code jetty}
 * (the {@link FloorProxy} floor). Meant for {@code -prof gc}: {@code gc.alloc.rate.norm} is the
 * bytes allocated per request in the whole JVM, so Levee's minus the floor's is what Levee's own
 * code allocates per JSON request.
 *
 * <p>Run: {@code java -jar levee-bench/target/levee-bench.jar GatewayJson -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgs = {"-Xmx256m", "-Djdk.pollerMode=1"})
public class GatewayJsonBenchmark {

  @Param({"levee", "jetty"})
  public String proxy;

  private FixedUpstream upstream;
  private Gateway gateway;
  private Server floor;
  private LoopbackClient client;

  @Setup(Level.Trial)
  public void start() throws Exception {
    upstream = FixedUpstream.start(30);
    URI base;
    if (proxy.equals("levee")) {
      gateway = Gateway.start(new ConfigLoader(Map.of("UP", upstream.baseUrl().toString())::get).parse("""
          server: { port: 0 }
          upstreams: { up: { url: "${UP}" } }
          models: { fast: { chain: [up/claude-fast] } }
          """, "gateway-json-benchmark"));
      base = URI.create(gateway.baseUrl().toString().replaceAll("/$", ""));
    } else {
      floor = FloorProxy.jettyIn(upstream.baseUrl());
      base = URI.create("http://127.0.0.1:" + VirtualThreadServer.port(floor));
    }
    client = new LoopbackClient(base, SideBySide.body("fast", false));
    if (client.exchange().status() != 200) {
      throw new IllegalStateException("the JSON answer through " + proxy + " is not a 200");
    }
  }

  @Benchmark
  public LoopbackClient.Answer json() throws Exception {
    return client.exchange();
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
