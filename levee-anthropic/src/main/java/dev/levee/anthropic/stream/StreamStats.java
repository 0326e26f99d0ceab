package dev.levee.anthropic.stream;

import dev.levee.core.sli.SliOutcome;
import dev.levee.core.sli.SliSnapshot;
import dev.levee.core.sli.SlidingWindow;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of stream health for {@code /health} and metrics: completion rate, recoveries per
 * stream, time to first token (p95 over the last minute) and the duplicate-event rate.
 * Thread-safe.
 */
public final class StreamStats {

  private final LongAdder started = new LongAdder();
  private final LongAdder completed = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder clientGone = new LongAdder();
  private final LongAdder recoveries = new LongAdder();
  private final LongAdder deltas = new LongAdder();
  private final LongAdder duplicates = new LongAdder();
  private final SlidingWindow ttft;

  public StreamStats(Ticker ticker) {
    this.ttft = new SlidingWindow(ticker);
  }

  /** A snapshot for reports. */
  public record Snapshot(long started, long completed, long failed, long clientGone, long recoveries,
      double completionRate, double recoveriesPerStream, long ttftP95Millis, double duplicateRate) {}

  void started(Duration timeToFirstToken) {
    started.increment();
    ttft.record(SliOutcome.SUCCESS, timeToFirstToken);
  }

  void ended(ResilientStream.Outcome outcome, int recovered, long deltaCount, long duplicateCount) {
    switch (outcome) {
      case COMPLETE -> completed.increment();
      case FAILED -> failed.increment();
      case CLIENT_GONE -> clientGone.increment();
    }
    recoveries.add(recovered);
    deltas.add(deltaCount);
    duplicates.add(duplicateCount);
  }

  /** Suspected duplicate content deltas at splices so far, dropped or not (for metrics). */
  public long duplicates() {
    return duplicates.sum();
  }

  public Snapshot snapshot() {
    long done = completed.sum() + failed.sum();
    long all = started.sum();
    long seen = deltas.sum() + duplicates.sum();
    SliSnapshot window = ttft.snapshot();
    return new Snapshot(all, completed.sum(), failed.sum(), clientGone.sum(), recoveries.sum(),
        done == 0 ? 1.0 : (double) completed.sum() / done,
        all == 0 ? 0.0 : (double) recoveries.sum() / all,
        window.p95Millis(),
        seen == 0 ? 0.0 : (double) duplicates.sum() / seen);
  }
}
