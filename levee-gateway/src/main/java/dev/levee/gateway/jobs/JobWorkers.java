package dev.levee.gateway.jobs;

import dev.levee.anthropic.error.ApiError;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains the job store by priority, then age, at most {@code workers} jobs at once, each on its
 * own virtual thread through a {@link JobExecutor}. One dispatcher thread claims as many jobs as
 * there are free slots, skipping paused aliases and features ({@link PauseGate}); it wakes when
 * work is added ({@link #wake}), when a slot frees, or every {@code poll} interval — which is
 * also how paused work resumes by itself. Abandoned claims are recovered and due jobs expired
 * every few polls. While interactive requests are in flight above {@code queue.yield-above}
 * ({@link #pacedBy}), at most one job runs at a time.
 */
public final class JobWorkers implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JobWorkers.class);

  private final JobStore store;
  private final JobExecutor executor;
  private final Supplier<PauseGate.Paused> gate;
  private final KeySeal seal;
  private final InstantSource wall;
  private final QueueConfig config;
  private final CallbackSender callbacks;
  private final Semaphore slots;
  private final Semaphore wake = new Semaphore(0);
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final AtomicLong finished = new AtomicLong();
  private final Thread dispatcher;
  private volatile boolean running = true;
  private volatile IntSupplier interactive = () -> 0;

  public JobWorkers(JobStore store, JobExecutor executor, Supplier<PauseGate.Paused> gate, KeySeal seal,
      InstantSource wall, QueueConfig config) {
    this.store = store;
    this.executor = executor;
    this.gate = gate;
    this.seal = seal;
    this.wall = wall;
    this.config = config;
    this.callbacks = new CallbackSender(store, config.callbackSecret(), wall);
    this.slots = new Semaphore(config.workers());
    this.dispatcher = Thread.ofPlatform().name("levee-jobs").daemon().unstarted(this::dispatch);
  }

  /** Starts draining; on an embedded store every job left {@code running} by a previous process is queued again first. */
  public JobWorkers start() {
    int recovered = store.recover(wall.instant(), store.database().dialect() == Database.Dialect.SQLITE);
    if (recovered > 0) {
      LOG.warn("{} jobs were running when the gateway stopped; they run again", recovered);
    }
    dispatcher.start();
    return this;
  }

  /**
   * Paces the pool by the gateway's interactive requests in flight: above {@code
   * queue.yield-above}, at most one job runs at a time (see {@link QueueConfig#yieldAbove()}).
   */
  public JobWorkers pacedBy(IntSupplier interactiveInFlight) {
    this.interactive = interactiveInFlight;
    return this;
  }

  /** Whether interactive requests are in flight above {@code queue.yield-above} now. */
  private boolean yielding() {
    return config.yieldAbove() >= 0 && interactive.getAsInt() > config.yieldAbove();
  }

  /** How many more jobs may start now: the free slots, or — yielding to interactive traffic — up to one running. */
  private int startable(boolean yielding) {
    int free = slots.availablePermits();
    return yielding ? Math.max(0, Math.min(free, 1 - (config.workers() - free))) : free;
  }

  /** Tells the dispatcher new work is there. */
  public void wake() {
    wake.release();
  }

  /** Jobs this pool brought to an end (a result recorded), since start. */
  public long finished() {
    return finished.get();
  }

  private void dispatch() {
    long polls = 0;
    while (running) {
      try {
        if (polls++ % 10 == 0) {
          Instant now = wall.instant();
          store.recover(now, false);
          store.expire(now);
        }
        if (!config.callbacks().isEmpty()) {
          callbacks.deliverDue();
        }
        boolean yielding = yielding();
        int free = startable(yielding);
        if (free > 0) {
          PauseGate.Paused paused = gate.get();
          Instant now = wall.instant();
          List<Job> claimed = store.claim(free, now, now.plus(config.lease()), paused.aliases(), paused.features());
          for (Job job : claimed) {
            slots.acquireUninterruptibly();
            threads.execute(() -> run(job));
          }
        }
        // every free slot filled, or nothing more is ready: wait for a freed slot, new work, or the poll;
        // yielding, look again soon (interactive requests end within milliseconds)
        long waitMs = yielding ? Math.min(5, config.poll().toMillis()) : config.poll().toMillis();
        wake.tryAcquire(waitMs, TimeUnit.MILLISECONDS);
        wake.drainPermits();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.error("the job dispatcher failed; trying again after {}", config.poll(), e);
        sleepQuietly(config.poll());
      }
    }
  }

  private void run(Job job) {
    try {
      String key;
      try {
        key = job.sealedKey() == null ? null : seal.open(job.sealedKey());
      } catch (IllegalStateException e) { // sealed under another secret: no try can succeed
        ApiError error = ApiError.api("Levee cannot open the API key kept for this job: " + e.getMessage());
        store.finish(job, new JobResult(500, Map.of("content-type", List.of("application/json")),
            error.toBytes(null)), false, error.message(), wall.instant());
        return;
      }
      JobExecutor.Outcome outcome = executor.execute(job.request(), key);
      Instant now = wall.instant();
      switch (outcome) {
        case JobExecutor.Finished f -> {
          if (store.finish(job, f.result(), f.succeeded(), null, now)) {
            finished.incrementAndGet();
          }
        }
        case JobExecutor.RetryLater later -> {
          Duration wait = later.after() != null && later.after().compareTo(config.retryDelay()) > 0
              ? later.after() : config.retryDelay();
          store.retryLater(job, later.reason(), now.plus(wait), now);
        }
      }
    } catch (RuntimeException e) {
      LOG.error("job {} failed inside Levee; it is tried again after {}", job.id(), config.retryDelay(), e);
      try {
        Instant now = wall.instant();
        store.retryLater(job, "Levee failed: " + e.getClass().getSimpleName(), now.plus(config.retryDelay()), now);
      } catch (RuntimeException ignored) {
        // the lease runs out and the job is recovered
      }
    } finally {
      slots.release();
      wake.release();
    }
  }

  private static void sleepQuietly(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    running = false;
    dispatcher.interrupt();
    try {
      dispatcher.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    callbacks.close();
    threads.shutdown();
    try {
      threads.awaitTermination(5, TimeUnit.SECONDS); // unfinished jobs stay running: their lease recovers them
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
