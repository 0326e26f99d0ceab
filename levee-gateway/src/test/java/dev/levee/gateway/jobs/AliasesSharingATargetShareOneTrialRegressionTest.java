package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.tier.TierBoard;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Aliases {@code smart} and {@code quick} both go to {@code emu/claude-x}. When its open period
 * ended, the trial claiming was per alias: the dispatcher claimed one job of each as "the trial",
 * and the second met "circuit half-open, trial in flight" and waited {@code queue.retry-delay} for
 * nothing. Now there is one trial per target: one job of either alias runs as the target's trial,
 * the jobs of both wait for its verdict and run once it closes the circuit.
 */
class AliasesSharingATargetShareOneTrialRegressionTest {

  private static final Target TARGET = new Target("emu", "claude-x");

  private final ManualClock clock = new ManualClock();
  private final QueueConfig config = TestStores.sqlite();
  private final Database db = Database.open(config);
  private final JobStore store = new JobStore(db);
  private final TierBoard tiers;
  private final Breakers breakers = new Breakers(
      CircuitBreakerConfig.of(1, Duration.ofSeconds(60), Duration.ofSeconds(30)).withCloseAfter(1), clock, t -> { },
      List.of(TARGET));
  private final PauseGate gate;
  private JobWorkers workers;

  AliasesSharingATargetShareOneTrialRegressionTest() throws Exception {
    GatewayConfig gateway = new ConfigLoader().parse("""
        upstreams:
          emu: { url: "http://127.0.0.1:9" }
        models:
          smart: { chain: [emu/claude-x] }
          quick: { chain: [emu/claude-x] }
        """, "test.yaml");
    tiers = new TierBoard(gateway, clock, clock, () -> Instant.EPOCH, (delay, task) -> () -> { });
    gate = new PauseGate(new Aliases(gateway), gateway.models().keySet(), breakers, tiers, List.of("default"));
  }

  @AfterEach
  void close() {
    if (workers != null) {
      workers.close();
    }
    tiers.close();
    db.close();
  }

  private void enqueue(String alias) {
    JobRequest request = new JobRequest("/v1/messages", null, Map.of(),
        ("{\"model\":\"" + alias + "\",\"max_tokens\":5,\"messages\":[]}").getBytes(StandardCharsets.UTF_8));
    Instant now = InstantSource.system().instant();
    store.enqueue(new NewJob("t", "default", alias, 5, null, request, null), now, now.plusSeconds(3600));
  }

  @Test
  void twoAliasesOfOneHalfOpenTargetRunOneTrialJobBetweenThem() throws Exception {
    ((CircuitBreaker.Admitted) breakers.gate(TARGET).tryAcquire()).permit().failure(); // open for 30 s
    enqueue("smart");
    enqueue("quick");
    enqueue("smart");
    enqueue("quick");
    clock.advance(Duration.ofSeconds(31)); // a trial may start
    assertThat(gate.paused().trials()).singleElement().satisfies(trial -> {
      assertThat(trial.target()).isEqualTo(TARGET);
      assertThat(trial.aliases()).as("and the model named directly").containsExactlyInAnyOrder("smart", "quick",
          "claude-x");
    });

    TrialJobs jobs = new TrialJobs(4);
    Semaphore asked = new Semaphore(0);
    workers = new JobWorkers(store, jobs.executor(breakers, TARGET), () -> {
      if (jobs.trialStarted().getCount() == 0) {
        asked.release();
      }
      return gate.paused();
    }, KeySeal.of(config.secret()), InstantSource.system(), config, clock::nanos).start();

    assertThat(jobs.trialStarted().await(10, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < 3; i++) { // the dispatcher looks again, three times, while the trial runs
      asked.drainPermits();
      workers.wake();
      assertThat(asked.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
    }

    assertThat(jobs.refused()).as("no second trial job claimed for the other alias").isEmpty();
    assertThat(jobs.started()).as("jobs started while the target's trial runs").hasValue(1);
    assertThat(gate.paused().why("default", "quick")).isPresent();
    assertThat(gate.paused().why("default", "smart")).isPresent();

    jobs.releaseTrial().countDown(); // the trial succeeds: closed

    assertThat(jobs.allDone().await(10, TimeUnit.SECONDS))
        .as("both aliases' work runs once the trial closed the circuit").isTrue();
    assertThat(jobs.refused()).isEmpty();
  }
}
