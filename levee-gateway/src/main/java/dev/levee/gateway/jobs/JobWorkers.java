package dev.levee.gateway.jobs;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.chain.ReservedPermit;
import dev.levee.core.time.Scheduler;
import dev.levee.gateway.pipeline.LeveeHeaders;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains the job store by priority, then age, at most {@code workers} jobs at once, each on its
 * own virtual thread through a {@link JobExecutor}. One dispatcher thread claims as many jobs as
 * may start ({@link Pacing}: fewer, or none, while interactive requests are around), skipping
 * paused aliases, features and feature-and-alias pairs ({@link PauseGate}). For a target whose
 * breaker admits only a trial call ({@link PauseGate.Trial}) it first takes the trial permit from
 * the breaker — under {@code cluster:} the one trial of the cluster, so a replica that does not get
 * it claims nothing — then claims one job of the aliases waiting on that target, whose call to it
 * goes out under that permit ({@link ReservedPermit}); it looks again as soon as that job ends:
 * the trial closed the circuit, or opened it again.
 *
 * <p>The dispatcher sleeps unless there is something to do: it wakes when work is added ({@link
 * #wake}), when a job ends while more work is ready, when pacing lets more jobs start, or every
 * {@code poll} interval — which is also how paused and retried work resumes by itself. A claim
 * that finds fewer ready jobs than it asked for marks the store drained: until work is added or
 * the next poll, ending jobs and interactive requests do not make it look again, so an idle
 * gateway asks the store once per {@code poll}. Due callbacks are claimed and posted when a job ended
 * or the poll came round; abandoned claims are recovered, due jobs expired, ended work past
 * {@code queue.retention} (29 days) deleted — slice after slice until none is left, for at most a
 * poll ({@link #UPKEEP_BUDGET}) — and the chores given to {@link #alsoKeepUp} run, each with the same
 * budget, every ten polls.
 *
 * <p><b>Leases.</b> A claimed job belongs to this pool for {@link QueueConfig#lease()} (default
 * 60 s). While jobs run, a heartbeat every third of the lease renews all their leases in one
 * statement ({@link JobStore#renewHeld}), so a job that outlives its lease — a long stream,
 * retries, fallbacks, cooldowns — is not recovered and run a second time while it still runs, and a
 * job stops being renewed the moment it ends. Only a dead gateway (or one that cannot reach the
 * database for two thirds of a lease) lets its jobs be claimed again, about one lease after its
 * last renewal. A renewal that finds a claim lost — the job was queued again or taken by another
 * worker while this one could not renew — fires the job's {@link Cancellation}: its upstream calls
 * close and its chain stops; whatever it still returns is not recorded ({@link JobStore#finish}
 * and {@link JobStore#retryLater} check the claim), so each job ends with one result.
 */
public final class JobWorkers implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JobWorkers.class);

  /**
   * The {@link Cancellation#reason} of a run stopped because an operator cancelled its job ({@code
   * POST /admin/jobs/{id}/cancel}): its access record and metrics say {@code cancelled}, not {@code
   * lease_lost}.
   */
  public static final String CANCELLED = "cancelled";

  /** The {@link Cancellation#reason} of a run stopped because its claim was lost (its lease ran out). */
  public static final String LEASE_LOST = "lease_lost";

  /**
   * The {@link Cancellation#reason} of a run stopped because the gateway stopped and the run
   * outlived the shutdown grace ({@link #close(Duration)}): its job was handed back to the queue
   * first, so nothing the run still returns is recorded.
   */
  public static final String SHUTDOWN = "shutdown";

  /** The grace {@link #close()} gives running jobs: what the pool gave them before it took one. */
  static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);

  /**
   * The longest one upkeep's purge of ended work goes on starting slices ({@link JobStore#purgeAll}),
   * and so does each {@link Chore} after it (the sweep of idempotency keys, {@code
   * IdempotencyKeys#sweepAll}): one {@code queue.poll}, and never more than this second. One poll because the upkeep comes every
   * ten: however far behind the purge is, it takes about a tenth of the dispatcher's time at most,
   * and a job added (or a callback coming due) while it runs waits about a poll more to start, as it
   * would had nothing woken the dispatcher. At most a second so that a long {@code queue.poll} does not
   * hold the dispatcher as long (a slice may outlast the budget by itself: it is checked between
   * slices). Enough: a slice of {@value JobStore#PURGED_JOBS} jobs in no batch took 10–30 ms, one of
   * {@value JobStore#PURGED_BATCHES} small batches (a transaction each) 60–90 ms, on either store on a
   * shared 2-core machine, so the default second deletes some 30,000 jobs or 1,500 batches an upkeep
   * (3,000 jobs or 150 batches a second with the default poll), far more than the workers run; a
   * burst (an outage queue expiring at once) goes over as many upkeeps as it needs. Each chore has a
   * budget of its own, so that a purge far behind does not starve the sweep: with one chore (the
   * gateway's) an upkeep holds the dispatcher for about two polls in ten at most.
   */
  static final Duration UPKEEP_BUDGET = Duration.ofSeconds(1);

  /** How long runs stopped at shutdown get to unwind (close their calls) before the store closes. */
  private static final Duration UNWIND = Duration.ofSeconds(5);

  private final JobStore store;
  private final JobExecutor executor;
  private final Supplier<PauseGate.Paused> gate;
  private final KeySeal seal;
  private final InstantSource wall;
  private final QueueConfig config;
  private final CallbackSender callbacks;
  private final Pacing pacing;
  private final LongSupplier nanos;
  private final Semaphore slots;
  private final Semaphore wake = new Semaphore(0);
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final AtomicLong finished = new AtomicLong();
  /** The claims this pool runs now, each with the switch that stops it: the heartbeat renews their leases. */
  private final Map<Job, Cancellation> runningJobs = new ConcurrentHashMap<>();
  /** The running claims that are the trial call of a target ({@link PauseGate.Trial}), with the trial permit taken for each. */
  private final Map<Job, ReservedPermit> trialJobs = new ConcurrentHashMap<>();
  /** Runs the heartbeat; its tasks block on the database, so it is this pool's own unless a test passes one. */
  private final Scheduler heartbeat;
  private final ScheduledThreadPoolExecutor ownHeartbeat;
  private volatile Scheduler.Scheduled nextBeat;
  /** Counts {@link #wake} calls and ended trial jobs: either, while a claim ran, keeps the store marked ready. */
  private final AtomicLong added = new AtomicLong();
  private final Thread dispatcher;
  /** This process's hold on its replica id in a shared store; null without one, or on the embedded store. */
  private final ReplicaLease replicaLease;
  private volatile boolean running = true;
  private final List<Chore> chores = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Object startLock = new Object(); // a late start (the replica id taken over) and close, one at a time
  private final CompletableFuture<Void> started = new CompletableFuture<>();
  private volatile Thread idTaker; // taking a held replica id, when start() could not at once
  /** The last claim may have left ready jobs behind: an ending job should make the dispatcher look again. */
  private volatile boolean ready = true;
  /** {@link #hold}: no job starts. */
  private volatile boolean held;
  /** Pacing, not a lack of work or slots, is what keeps jobs from starting now. */
  private volatile boolean heldBack;

  /** A pool paced by the monotonic system clock. */
  public JobWorkers(JobStore store, JobExecutor executor, Supplier<PauseGate.Paused> gate, KeySeal seal,
      InstantSource wall, QueueConfig config) {
    this(store, executor, gate, seal, wall, config, System::nanoTime);
  }

  /** A pool whose pacing reads {@code nanos} (monotonic, nanoseconds); its heartbeat has a thread of its own. */
  public JobWorkers(JobStore store, JobExecutor executor, Supplier<PauseGate.Paused> gate, KeySeal seal,
      InstantSource wall, QueueConfig config, LongSupplier nanos) {
    this(store, executor, gate, seal, wall, config, nanos, null);
  }

  /**
   * A pool whose pacing reads {@code nanos} (monotonic, nanoseconds) and whose lease heartbeat runs
   * on {@code heartbeat} (null: a daemon thread of its own). The heartbeat's task blocks on the
   * database, so pass a scheduler no latency-sensitive timer shares — a {@code ManualClock} in tests.
   */
  public JobWorkers(JobStore store, JobExecutor executor, Supplier<PauseGate.Paused> gate, KeySeal seal,
      InstantSource wall, QueueConfig config, LongSupplier nanos, Scheduler heartbeat) {
    this.store = store;
    this.executor = executor;
    this.gate = gate;
    this.seal = seal;
    this.wall = wall;
    this.config = config;
    this.callbacks = new CallbackSender(store, config.callbackSecret(), wall, config.lease());
    this.slots = new Semaphore(config.workers());
    this.nanos = nanos;
    this.pacing = new Pacing(config.pacing(), config.workers(), nanos);
    this.pacing.onQuiet(() -> {
      if (heldBack) {
        wake.release();
      }
    });
    this.replicaLease = store.replicaId() != null && store.database().dialect() == Database.Dialect.POSTGRESQL
        ? new ReplicaLease(store.database(), store.replicaId()) : null;
    this.dispatcher = Thread.ofPlatform().name("levee-jobs").daemon().unstarted(this::dispatch);
    if (heartbeat == null) {
      this.ownHeartbeat = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().name("levee-jobs-lease").daemon().factory());
      this.ownHeartbeat.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      this.ownHeartbeat.setRemoveOnCancelPolicy(true);
      this.heartbeat = (delay, task) -> {
        var f = ownHeartbeat.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
      };
    } else {
      this.ownHeartbeat = null;
      this.heartbeat = heartbeat;
    }
  }

  /**
   * Starts draining. Every job a previous process of this gateway left {@code running} is queued
   * again first: on an embedded store all of them; on a shared one those claimed under this
   * gateway's {@code queue.replica-id} ({@link JobStore#recoverOwn}; none without one, and they wait
   * out their lease). With a replica id on a shared store it first takes the id ({@link
   * ReplicaLease}): free or released, at once; held by another process, on a thread of its own
   * (the gateway serves and queues meanwhile), which waits two heartbeats (two thirds of a lease) to see whether that
   * process is alive: a crashed one's hold is taken over and draining starts; a live one's is an
   * error logged (two live replicas with one id), and this gateway's workers stay off. {@link
   * #started()} tells which.
   */
  public JobWorkers start() {
    if (replicaLease == null || replicaLease.tryAcquire(wall)) {
      drain();
      return this;
    }
    idTaker = Thread.ofVirtual().name("levee-replica-id").start(this::takeIdThenDrain);
    return this;
  }

  /**
   * Completes once the workers drain; exceptionally ({@link IllegalStateException}) when another
   * live gateway holds this one's {@code queue.replica-id}, and then this gateway runs no queued job.
   */
  public CompletableFuture<Void> started() {
    return started;
  }

  private void takeIdThenDrain() {
    try {
      replicaLease.acquire(wall, config.lease().dividedBy(3), Thread::sleep);
    } catch (IllegalStateException e) {
      LOG.error("{}; this gateway still serves and queues, and leaves queued jobs to the other replicas", e.getMessage());
      started.completeExceptionally(e);
      return;
    } catch (InterruptedException | RuntimeException e) { // closed while waiting, or the store away
      started.completeExceptionally(e);
      return;
    }
    synchronized (startLock) {
      if (running) {
        drain();
        return;
      }
    }
    replicaLease.release(); // closed while taking it: the id is given back as close() would have
    started.completeExceptionally(new IllegalStateException("closed before the workers started"));
  }

  private void drain() {
    Instant now = wall.instant();
    int recovered = store.database().dialect() == Database.Dialect.SQLITE ? store.recover(now, true)
        : store.recoverOwn(now);
    if (recovered > 0) {
      LOG.warn("{} jobs were running when the gateway stopped; they run again", recovered);
    }
    dispatcher.start();
    scheduleBeat();
    started.complete(null);
  }

  private void scheduleBeat() {
    if (running) {
      try {
        nextBeat = heartbeat.schedule(config.lease().dividedBy(3), this::beat);
      } catch (java.util.concurrent.RejectedExecutionException closed) {
        // close() shut the heartbeat down
      }
    }
  }

  /**
   * Renews the lease of every job this pool runs, in one statement, and stops each job whose claim
   * it finds lost. A failure (the database is down) is logged and the jobs keep running: if no
   * renewal gets through before the lease runs out, another worker may run them too — at least
   * once — and only one result is recorded.
   */
  private void beat() {
    if (replicaLease != null) {
      try {
        if (!replicaLease.beat(wall.instant())) {
          LOG.error("queue.replica-id {} is now held by another gateway process (this one could not renew its hold for "
              + "two heartbeats, and one started with the same id took it over): the two may run each other's jobs "
              + "again when either restarts; give each replica its own id", store.replicaId());
        }
      } catch (RuntimeException e) {
        LOG.warn("cannot renew the hold on queue.replica-id {}; trying again in {}", store.replicaId(),
            config.lease().dividedBy(3), e);
      }
    }
    try {
      List<Job> jobs = List.copyOf(runningJobs.keySet());
      if (!jobs.isEmpty()) {
        Instant now = wall.instant();
        Set<Job> renewed = store.renewHeld(jobs, now.plus(config.lease()), now);
        List<Job> lost = jobs.stream().filter(job -> !renewed.contains(job)).toList();
        Map<String, JobState> states = lost.isEmpty() ? Map.of() : store.states(lost.stream().map(Job::id).toList());
        for (Job job : lost) {
          Cancellation stop = runningJobs.get(job);
          if (stop == null || stop.isCancelled()) { // null: it ended between the snapshot and the update
            continue;
          }
          if (states.get(job.id()) == JobState.CANCELLED) { // on another gateway's admin API
            LOG.info("job {} was cancelled by an operator: stopping its run, whose result is not kept", job.id());
            stop.cancel(CANCELLED);
          } else {
            LOG.warn("lease_lost: job {} is no longer this gateway's (its lease ran out before a renewal got through; it was "
                + "queued again or another worker runs it): stopping this run, whose result would not be kept", job.id());
            stop.cancel(LEASE_LOST);
          }
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("cannot renew the leases of {} running jobs; they keep running and are renewed again in {}",
          runningJobs.size(), config.lease().dividedBy(3), e);
    } finally {
      scheduleBeat();
    }
  }

  /** Where the gateway reports its interactive requests: the pool steps aside for them. */
  public InteractiveTraffic traffic() {
    return pacing;
  }

  /** Tells the dispatcher new work is there. */
  public void wake() {
    added.incrementAndGet();
    ready = true;
    wake.release();
  }

  /**
   * Holds the pool ({@code true}: no job starts, running ones finish) or lets it drain again. For
   * maintenance and for benchmarks that compare interactive latency with and without a drain.
   */
  public void hold(boolean hold) {
    held = hold;
    wake();
  }

  /**
   * Stops this pool's run of job {@code id} at once, if it runs one — after {@link JobStore#cancel}
   * ended it {@code cancelled}: its upstream calls close and its chain stops; its access record
   * says {@code cancelled}. A run on another gateway stops at that gateway's next lease renewal
   * (within a third of {@code queue.lease}).
   *
   * @return whether a run of it was stopped here
   */
  public boolean stop(String id) {
    for (Map.Entry<Job, Cancellation> run : runningJobs.entrySet()) {
      if (run.getKey().id().equals(id) && !run.getValue().isCancelled()) {
        LOG.info("job {} was cancelled by an operator: stopping its run, whose result is not kept", id);
        run.getValue().cancel(CANCELLED);
        return true;
      }
    }
    return false;
  }

  /** Jobs this pool brought to an end (a result recorded), since start. */
  public long finished() {
    return finished.get();
  }

  private void dispatch() {
    long poll = config.poll().toNanos();
    long nextPoll = nanos.getAsLong();
    long polls = 0;
    long finishedSeen = 0;
    while (running) {
      try {
        boolean polled = nanos.getAsLong() - nextPoll >= 0;
        if (polled) { // the poll came round: retried jobs came due, paused work may resume
          ready = true;
          nextPoll = nanos.getAsLong() + poll;
          if (polls++ % 10 == 0) {
            Instant now = wall.instant();
            store.recover(now, false);
            store.expire(now);
            store.purgeAll(now, config.retention(), nanos, upkeepBudget()); // ended work past queue.retention
            chores.forEach(this::upkeep);
          }
        }
        long ended = finished.get();
        if (!config.callbacks().isEmpty() && (polled || ended != finishedSeen)) { // a retry is due, or a job ended
          callbacks.deliverDue();
        }
        finishedSeen = ended;
        int free = slots.availablePermits();
        Pacing.Decision pace = pacing.decide(config.workers() - free);
        int startable = held ? 0 : Math.min(free, pace.startable());
        heldBack = ready && !held && startable < free;
        if (startable > 0 && ready) {
          long addedBefore = added.get();
          List<Job> claimed = claim(startable, gate.get());
          ready = claimed.size() == startable || added.get() != addedBefore;
          pacing.started(claimed.size());
          claimed.forEach(job -> runningJobs.put(job, new Cancellation()));
          for (Job job : claimed) {
            slots.acquireUninterruptibly();
            threads.execute(() -> run(job));
          }
        }
        // sleep until work is added, a job ends while more is ready, pacing allows more, or the poll
        long wait = nextPoll - nanos.getAsLong();
        if (ready && pace.recheckNanos() >= 0) {
          wait = Math.min(wait, pace.recheckNanos());
        }
        wake.tryAcquire(Math.max(0, wait), TimeUnit.NANOSECONDS);
        wake.drainPermits();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.error("the job dispatcher failed; trying again after {}", config.poll(), e);
        ready = true;
        sleepQuietly(config.poll());
      }
    }
  }

  /** {@link #UPKEEP_BUDGET}: one {@code queue.poll}, at most a second. */
  private Duration upkeepBudget() {
    return config.poll().compareTo(UPKEEP_BUDGET) < 0 ? config.poll() : UPKEEP_BUDGET;
  }

  /**
   * Work the upkeep does besides its own ({@link #alsoKeepUp}), in slices: given the pool's monotonic
   * clock and a budget ({@link #UPKEEP_BUDGET}), it starts no further slice once the budget has
   * passed on that clock since it began — as {@link JobStore#purgeAll} does — and leaves the rest to
   * the next upkeep.
   */
  @FunctionalInterface
  public interface Chore {

    /**
     * @param nanos the pool's monotonic clock, nanoseconds
     * @param budget how long to go on starting slices of work
     */
    void keepUp(LongSupplier nanos, Duration budget);
  }

  /**
   * Runs {@code chore} with the pool's upkeep from now on: every ten {@code queue.poll}s, on the
   * dispatcher thread, after recovery, expiry and the purge of ended work (the sweep of idempotency
   * keys past their TTL, {@code IdempotencyKeys#sweepAll}), with a budget of its own. A chore must
   * keep to its budget (or do only what came due since the last upkeep); one that throws is logged
   * and runs again at the next upkeep.
   */
  public void alsoKeepUp(Chore chore) {
    chores.add(java.util.Objects.requireNonNull(chore, "chore"));
  }

  private void upkeep(Chore chore) {
    try {
      chore.keepUp(nanos, upkeepBudget());
    } catch (RuntimeException e) {
      LOG.warn("an upkeep chore failed; it runs again at the next upkeep", e);
    }
  }

  /**
   * Claims up to {@code startable} jobs the gate lets run: first the trial call of each {@link
   * PauseGate.Trial} target this pool runs no trial job of (one job, once its trial permit is
   * taken), then any other ready work outside the held and trial aliases.
   */
  private List<Job> claim(int startable, PauseGate.Paused paused) {
    Instant now = wall.instant();
    Instant leaseUntil = now.plus(config.lease());
    List<Job> claimed = new ArrayList<>(startable);
    for (PauseGate.Trial trial : paused.trials()) {
      if (claimed.size() >= startable || trialJobs.values().stream().anyMatch(t -> t.target().equals(trial.target()))) {
        continue;
      }
      if (!store.readyOf(trial.aliases(), now, paused.features(), paused.scopes())) {
        continue; // nothing of theirs waits: taking the permit would turn the circuit half-open with no trial to run
      }
      ReservedPermit permit = takeTrial(trial);
      if (permit == null) {
        continue; // another call (or replica) holds the trial, or the circuit closed: the next look decides
      }
      List<Job> job;
      try {
        job = store.claimOf(trial.aliases(), 1, now, leaseUntil, paused.features(), paused.scopes());
      } catch (RuntimeException e) {
        permit.release(); // a trial slot has no time limit: never keep one the pool cannot use
        throw e;
      }
      if (job.isEmpty()) {
        permit.release(); // nothing of theirs is ready here: the trial is free for a call that has one
        continue;
      }
      trialJobs.put(job.getFirst(), permit);
      claimed.addAll(job);
    }
    Set<String> waiting = paused.trialAliases();
    Set<String> held = waiting.isEmpty() ? paused.aliases() : union(paused.aliases(), waiting);
    try {
      claimed.addAll(store.claim(startable - claimed.size(), now, leaseUntil, held, paused.features(), paused.scopes()));
    } catch (RuntimeException e) {
      if (claimed.isEmpty()) {
        throw e;
      }
      // the trial jobs are claimed and hold their permits: they run; the failure comes back at the next look
    }
    return claimed;
  }

  /** The trial permit of {@code trial}'s target, or null when its breaker admits no trial now. */
  private static ReservedPermit takeTrial(PauseGate.Trial trial) {
    return switch (trial.gate().tryAcquire()) {
      case CircuitBreaker.Admitted admitted when admitted.permit().trial() ->
          new ReservedPermit(trial.target(), admitted.permit());
      case CircuitBreaker.Admitted closed -> { // closed since the gate looked: the next claim drains it
        closed.permit().cancelled();
        yield null;
      }
      case CircuitBreaker.Rejected rejected -> null;
    };
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> out = new HashSet<>(a);
    out.addAll(b);
    return out;
  }

  private void run(Job job) {
    Cancellation lost = runningJobs.getOrDefault(job, new Cancellation());
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
      // the job's id rides along for its access record; Levee's own headers never reach the upstream
      JobExecutor.Outcome outcome = executor.execute(job.request().with(LeveeHeaders.JOB, job.id()), key, lost,
          trialJobs.getOrDefault(job, ReservedPermit.NONE));
      if (runningJobs.remove(job) == null) { // ended: no renewal from here on, and none can find it lost
        return; // handed back at shutdown meanwhile (handBack took it out first): queued again, not recorded
      }
      Instant now = wall.instant();
      boolean kept = switch (outcome) {
        case JobExecutor.Finished f -> {
          boolean recorded = store.finish(job, f.result(), f.succeeded(), null, now);
          if (recorded) {
            finished.incrementAndGet();
          }
          yield recorded;
        }
        case JobExecutor.RetryLater later -> {
          Duration wait = later.after() != null && later.after().compareTo(config.retryDelay()) > 0
              ? later.after() : config.retryDelay();
          yield store.retryLater(job, later.reason(), now.plus(wait), now);
        }
      };
      if (!kept && !lost.isCancelled()) { // a run this pool stopped was logged when it was stopped
        LOG.info("job {} ended here after its claim was lost (queued again, taken over or cancelled): "
            + "its outcome is not recorded", job.id());
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
      runningJobs.remove(job);
      slots.release();
      ReservedPermit trial = trialJobs.remove(job);
      if (trial != null) { // the trial decided: the circuit closed (its aliases' work may drain) or opened again
        trial.release(); // unused (the run stopped before the target): frees the trial at once
        wake(); // counted, not only flagged: a claim running now must not mark the store drained over it
      } else if (ready || heldBack) {
        wake.release();
      }
    }
  }

  private static void sleepQuietly(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops claiming: the dispatcher ends, so no queued job starts from now on, while the jobs
   * running go on (their leases still renewed). The first step of a shutdown, taken before the
   * server drains so that queued work is not started only to be stopped. Idempotent.
   */
  public void stopClaiming() {
    synchronized (startLock) {
      running = false;
    }
    Thread taker = idTaker;
    if (taker != null) {
      taker.interrupt();
    }
    dispatcher.interrupt();
    try {
      dispatcher.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** {@link #close(Duration)} with a grace of 5 s. */
  @Override
  public void close() {
    close(DEFAULT_GRACE);
  }

  /**
   * Stops the pool: no job starts from now on ({@link #stopClaiming}); the running jobs get {@code
   * grace} to finish, and their results are recorded as usual. A job still running after it is
   * handed back — queued again at once, with {@code last_error} {@code "shutdown: …"} and its run
   * stopped ({@link #SHUTDOWN}) — before the store is left: the next process (or another replica)
   * runs it, and the stopped run's late outcome is not recorded (the claim is no longer current).
   * Queued jobs stay queued. Neither lost nor recorded twice; a job whose hand-back fails (the
   * store is away) stays {@code running} and is recovered as after a crash (its lease, or the
   * next start on an embedded store). Then pending callbacks stop and the replica id is released.
   *
   * @param grace how long running jobs may take to finish (the gateway passes {@code
   *     server.shutdown-grace}, what requests in flight get too); zero hands them back at once
   */
  public void close(Duration grace) {
    stopClaiming();
    threads.shutdown();
    try {
      if (!threads.awaitTermination(Math.max(0, grace.toMillis()), TimeUnit.MILLISECONDS)) {
        handBack();
        threads.awaitTermination(UNWIND.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Scheduler.Scheduled beat = nextBeat;
    if (beat != null) {
      beat.cancel();
    }
    if (ownHeartbeat != null) {
      ownHeartbeat.shutdown(); // a renewal under way ends; no further one starts
    }
    callbacks.close();
    if (replicaLease != null) {
      try {
        replicaLease.release(); // a clean stop: the next process with this id starts at once
      } catch (RuntimeException e) {
        LOG.warn("cannot release queue.replica-id {}; its next process waits two heartbeats before taking it",
            store.replicaId(), e);
      }
    }
  }

  /**
   * Queues again every job still running, then stops its run: the store first, so that whatever
   * the run returns meanwhile finds its claim gone and is not recorded. A job is taken out of the
   * running ones first, as a run that returns takes itself out before it records its result: the
   * one that does so first decides, so a result that came back just as the grace ran out is
   * recorded, not thrown away and paid for again.
   */
  private void handBack() {
    int handedBack = 0;
    for (Job job : List.copyOf(runningJobs.keySet())) {
      Cancellation run = runningJobs.remove(job); // whoever takes it out, this or the run's end, ends it
      if (run == null) {
        continue; // its run returned meanwhile: its own result is recorded
      }
      try {
        Instant now = wall.instant();
        if (store.retryLater(job, JobStore.SHUTDOWN, now, now)) {
          handedBack++;
        }
      } catch (RuntimeException e) {
        LOG.warn("cannot hand job {} back to the queue at shutdown; it is recovered as after a crash", job.id(), e);
      }
      run.cancel(SHUTDOWN);
    }
    if (handedBack > 0) {
      LOG.info("shutdown: {} jobs still running after the grace were queued again; they run again", handedBack);
    }
  }
}
