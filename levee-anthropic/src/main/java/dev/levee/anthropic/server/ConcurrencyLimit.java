package dev.levee.anthropic.server;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Requests in flight, in total and per tenant, against fixed maxima. Never waits: a request over
 * a limit is refused at once ({@link Refused}), so no client queues behind a stuck one.
 * Tenants with nothing in flight hold no entry (the table is bounded by the requests in flight).
 * Thread-safe.
 */
final class ConcurrencyLimit {

  /** What {@link #tryAcquire} decided. */
  sealed interface Decision permits Permit, Refused {}

  /** A refusal: the tenant's limit, or the server's. */
  enum Refused implements Decision { TENANT, TOTAL }

  /** One admitted request; {@link #close()} releases it (idempotent). */
  static final class Permit implements Decision, AutoCloseable {
    private final ConcurrencyLimit limit;
    private final String tenant;
    private final AtomicInteger released = new AtomicInteger();

    private Permit(ConcurrencyLimit limit, String tenant) {
      this.limit = limit;
      this.tenant = tenant;
    }

    @Override
    public void close() {
      if (released.compareAndSet(0, 1)) {
        limit.release(tenant);
      }
    }
  }

  private final int maxTotal;
  private final int maxPerTenant;
  private final AtomicInteger total = new AtomicInteger();
  private final ConcurrentHashMap<String, Integer> perTenant = new ConcurrentHashMap<>();

  ConcurrencyLimit(int maxTotal, int maxPerTenant) {
    this.maxTotal = maxTotal;
    this.maxPerTenant = maxPerTenant;
  }

  /**
   * Admits a request of {@code tenant}.
   *
   * @return a permit, or the refusal when a limit is reached
   */
  Decision tryAcquire(String tenant) {
    if (total.incrementAndGet() > maxTotal) {
      total.decrementAndGet();
      return Refused.TOTAL;
    }
    boolean[] admitted = {false};
    perTenant.compute(tenant, (k, n) -> {
      int now = n == null ? 0 : n;
      if (now >= maxPerTenant) {
        return n;
      }
      admitted[0] = true;
      return now + 1;
    });
    if (!admitted[0]) {
      total.decrementAndGet();
      return Refused.TENANT;
    }
    return new Permit(this, tenant);
  }

  /** Requests in flight now. */
  int inFlight() {
    return total.get();
  }

  int maxTotal() {
    return maxTotal;
  }

  int maxPerTenant() {
    return maxPerTenant;
  }

  private void release(String tenant) {
    perTenant.computeIfPresent(tenant, (k, n) -> n <= 1 ? null : n - 1);
    total.decrementAndGet();
  }
}
