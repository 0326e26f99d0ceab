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
 * One 30-delta stream through a proxy, as the side-by-side benchmark sends it (its request, its
 * {@link FixedUpstream}, one kept-alive connection of the {@link LoopbackClient}), the proxy in
 * this JVM: {@code levee} (the gateway as {@link LeveeProcess} configures it) or {@code jetty}
 * (the {@link FloorProxy} floor: Levee's server, a bare forwarding handler). Meant for {@code
 * -prof gc}: {@code gc.alloc.rate.norm} is the bytes allocated per stream in the whole JVM —
 * client, upstream and proxy — so Levee's minus the floor's is what Levee's own code allocates
 * per stream, a figure the box's load does not move (its time is not read here).
 *
 * <p>Run: {@code java -jar levee-bench/target/levee-bench.jar GatewayStream -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgs = {"-Xmx256m", "-Djdk.pollerMode=1"})
public class GatewayStreamBenchmark extends ThroughAProxy {

  @Override
  boolean asksForAStream() {
    return true;
  }

  @Override
  boolean whole(LoopbackClient.Answer answer) {
    return answer.completeStream(30);
  }

  @Benchmark
  public LoopbackClient.Answer stream() throws Exception {
    return client.exchange();
  }
}
