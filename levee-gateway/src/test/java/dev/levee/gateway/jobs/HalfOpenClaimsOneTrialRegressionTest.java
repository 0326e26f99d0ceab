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
 * When a circuit's open period ended, the dispatcher claimed as many of the alias's jobs as it had
 * free workers: one became the trial call, the others were refused ("circuit half-open, trial in
 * flight") and each waited {@code queue.retry-delay} (5 s) — a burst of wasted claims, and work
 * held back for nothing once the trial closed the circuit. Now, while the alias's targets admit
 * only a trial, one job is claimed and the rest stay queued (never claimed, no try counted) until
 * the trial ends; when it closes the circuit they all run at once. The breaker runs on a manual
 * clock; the executor is the request path's breaker check.
 */
class HalfOpenClaimsOneTrialRegressionTest {

  private static final Target TARGET = new Target("emu", "claude-x");
  private static final int JOBS = 4; // as many as the pool's workers

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

  HalfOpenClaimsOneTrialRegressionTest() throws Exception {
    GatewayConfig gateway = new ConfigLoader().parse("""
        upstreams:
          emu: { url: "http://127.0.0.1:9" }
        models:
          smart: { chain: [emu/claude-x] }
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

  private void enqueue() {
    JobRequest request = new JobRequest("/v1/messages", null, Map.of(),
        "{\"model\":\"smart\",\"max_tokens\":5,\"messages\":[]}".getBytes(StandardCharsets.UTF_8));
    Instant now = InstantSource.system().instant();
    store.enqueue(new NewJob("t", "default", "smart", 5, null, request, null), now, now.plusSeconds(3600));
  }

  @Test
  void oneJobIsClaimedAsTheTrialAndTheRestRunWhenItClosesTheCircuit() throws Exception {
    assertThat(config.workers()).isEqualTo(JOBS);
    ((CircuitBreaker.Admitted) breakers.gate(TARGET).tryAcquire()).permit().failure(); // open for 30 s
    for (int i = 0; i < JOBS; i++) {
      enqueue();
    }
    assertThat(gate.paused().aliases()).as("open: held").contains("smart");
    clock.advance(Duration.ofSeconds(31)); // the open period is over: a trial may start
    assertThat(gate.paused().trialAliases()).contains("smart");

    TrialJobs jobs = new TrialJobs(JOBS);
    Semaphore asked = new Semaphore(0);
    workers = new JobWorkers(store, jobs.executor(breakers, TARGET), () -> {
      if (jobs.trialStarted().getCount() == 0) {
        asked.release(); // the dispatcher asked the gate while the trial ran
      }
      return gate.paused();
    }, KeySeal.of(config.secret()), InstantSource.system(), config, clock::nanos).start();

    assertThat(jobs.trialStarted().await(10, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < 3; i++) { // work is added (elsewhere): the dispatcher looks again, three times
      asked.drainPermits();
      workers.wake();
      assertThat(asked.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
    }

    assertThat(jobs.refused()).as("no job claimed beside the trial").isEmpty();
    assertThat(store.counts()).filteredOn(c -> c.state() == JobState.QUEUED)
        .singleElement().satisfies(c -> assertThat(c.jobs()).isEqualTo(JOBS - 1));
    assertThat(gate.paused().why("default", "smart")).hasValueSatisfying(why -> assertThat(why)
        .contains("emu/claude-x: circuit half-open, trial in flight"));

    jobs.releaseTrial().countDown(); // the trial succeeds: closed (close-after 1)

    assertThat(jobs.allDone().await(10, TimeUnit.SECONDS))
        .as("the rest run as soon as the trial ends, not at the next poll").isTrue();
    assertThat(jobs.refused()).isEmpty();
  }
}
