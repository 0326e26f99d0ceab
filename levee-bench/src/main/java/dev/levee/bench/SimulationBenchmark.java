package dev.levee.bench;

import dev.levee.sim.RunStats;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: one simulation of 1,000,000 requests per operation, per scenario of {@link
 * MillionRequests}; the score is milliseconds per run (target: under 2,000).
 *
 * <p>Run: {@code java -jar levee-bench/target/levee-bench.jar SimulationBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class SimulationBenchmark {

  @Param({"STUDY_BUDGET", "STUDY_IMMEDIATE", "OVERLOAD_IMMEDIATE", "OVERLOAD_BREAKER_BUDGET"})
  public MillionRequests scenario;

  @Benchmark
  public RunStats millionRequests() {
    return scenario.run();
  }
}
