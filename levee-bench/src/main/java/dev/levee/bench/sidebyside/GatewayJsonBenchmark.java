package dev.levee.bench.sidebyside;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
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
public class GatewayJsonBenchmark extends ThroughAProxy {

  @Override
  boolean asksForAStream() {
    return false;
  }

  @Override
  boolean whole(LoopbackClient.Answer answer) {
    return answer.status() == 200;
  }

  @Benchmark
  public LoopbackClient.Answer json() throws Exception {
    return client.exchange();
  }
}
