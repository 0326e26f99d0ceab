package dev.levee.gateway.server;

import dev.levee.core.time.Scheduler;
import dev.levee.core.time.Spans;
import dev.levee.gateway.health.Readiness;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first step of a stop ({@code server.drain-delay}, default 0 s): report not ready
 * ({@code /health/ready} 503 {@code draining}) while everything is still served, new connections
 * included, for {@code delay}, so that a load balancer or Kubernetes stops routing to this replica
 * before its listener closes. Without it, an endpoint removed concurrently with SIGTERM still
 * receives connections for a few seconds, and they are refused. The remedy is the lame-duck mode of
 * gRPC and Finagle, Envoy's drain time, the {@code preStop} sleep of the Kubernetes docs.
 *
 * <p>The delay is timed by the gateway's {@link Scheduler} (virtual time in tests). A zero delay
 * marks not-ready and returns at once: the stop is what it was without this step. Thread-safe; a
 * second {@link #begin} (a shutdown hook and a try-with-resources both close the gateway) waits for
 * the same delay, never starts another.
 */
public final class DrainDelay {

  private static final Logger LOG = LoggerFactory.getLogger(DrainDelay.class);

  private final Duration delay;
  private final Scheduler scheduler;
  private CompletableFuture<Void> passed; // null until the first begin; guarded by this

  /**
   * @param delay how long to keep serving while not ready; zero for none
   * @param scheduler the gateway's timers
   * @throws IllegalArgumentException when {@code delay} is negative
   */
  public DrainDelay(Duration delay, Scheduler scheduler) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("drain-delay must not be negative, was " + Spans.of(delay));
    }
    this.delay = delay;
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
  }

  /**
   * Marks {@code readiness} draining, logs once at INFO, and returns once the delay has passed.
   * Interrupted, it returns at once with the thread's interrupt flag set: the stop goes on.
   */
  public void begin(Readiness readiness) {
    CompletableFuture<Void> wait;
    synchronized (this) {
      if (passed == null) {
        passed = new CompletableFuture<>();
        if (delay.isZero()) {
          passed.complete(null);
        } else { // the timer is set before anyone can see not-ready: a test advancing the clock then finds it
          CompletableFuture<Void> timer = passed;
          scheduler.schedule(delay, () -> timer.complete(null));
          LOG.info("draining for {} before stopping: /health/ready answers 503", Spans.of(delay));
        }
      }
      wait = passed;
    }
    readiness.draining();
    try {
      wait.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e); // never: the timer only completes it
    }
  }
}
