package dev.levee.anthropic.server;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Requests in flight and the bytes of the bodies they hold, in total and per tenant, against fixed
 * maxima. Never waits: a request over a limit is refused at once ({@link Refused}), so no client
 * queues behind a stuck one. A tenant may hold at most half of the bytes, so one tenant's large
 * uploads leave room for the others' (the same share as its requests by default). Tenants with
 * nothing in flight hold no entry (the table is bounded by the requests in flight). Thread-safe.
 */
final class ConcurrencyLimit {

  /** What {@link #tryAcquire} decided. */
  sealed interface Decision permits Permit, Refused {}

  /**
   * A refusal: the tenant's limit, or the server's; for bytes ({@link Permit#hold}), also a body
   * larger than a tenant's share ({@link #BYTES_NEVER}), which no wait would admit.
   */
  enum Refused implements Decision { TENANT, TOTAL, BYTES_TENANT, BYTES_TOTAL, BYTES_NEVER }

  /** A tenant's requests and body bytes in flight. */
  private record Usage(int requests, long bytes) {}

  /**
   * One admitted request, and the body bytes it holds; {@link #close()} releases both (idempotent).
   * Thread-safe.
   */
  static final class Permit implements Decision, AutoCloseable {
    private final ConcurrencyLimit limit;
    private final String tenant;
    private long held; // guarded by this
    private boolean released; // guarded by this

    private Permit(ConcurrencyLimit limit, String tenant) {
      this.limit = limit;
      this.tenant = tenant;
    }

    /**
     * Makes this request hold {@code bytes} of body in all (more than it holds already, or
     * nothing changes).
     *
     * @return null when held; else why not (what it held before stays held)
     */
    synchronized Refused hold(long bytes) {
      long more = bytes - held;
      if (more <= 0 || released) {
        return null;
      }
      if (bytes > limit.maxBytesPerTenant) {
        return Refused.BYTES_NEVER;
      }
      Refused refused = limit.addBytes(tenant, more);
      if (refused == null) {
        held = bytes;
      }
      return refused;
    }

    /** Holds no bytes from now on (what it held goes back); {@link #hold} may take some again. */
    void letGo() {
      long bytes;
      synchronized (this) {
        bytes = held;
        held = 0;
        if (bytes == 0 || released) {
          return;
        }
      }
      limit.releaseBytes(tenant, bytes);
    }

    ConcurrencyLimit limit() {
      return limit;
    }

    @Override
    public void close() {
      long bytes;
      synchronized (this) {
        if (released) {
          return;
        }
        released = true;
        bytes = held;
      }
      limit.release(tenant, bytes);
    }
  }

  private final int maxTotal;
  private final int maxPerTenant;
  private final long maxBytes;
  private final long maxBytesPerTenant;
  private final AtomicInteger total = new AtomicInteger();
  private final AtomicLong totalBytes = new AtomicLong();
  private final ConcurrentHashMap<String, Usage> perTenant = new ConcurrentHashMap<>();

  /** Limits on requests only: bytes held without bound. */
  ConcurrencyLimit(int maxTotal, int maxPerTenant) {
    this(maxTotal, maxPerTenant, Long.MAX_VALUE);
  }

  /**
   * @param maxBytes body bytes held at most over all requests; a tenant holds at most half
   */
  ConcurrencyLimit(int maxTotal, int maxPerTenant, long maxBytes) {
    this.maxTotal = maxTotal;
    this.maxPerTenant = maxPerTenant;
    this.maxBytes = maxBytes;
    this.maxBytesPerTenant = maxBytes == Long.MAX_VALUE ? Long.MAX_VALUE : maxBytes / 2;
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
    perTenant.compute(tenant, (k, usage) -> {
      Usage now = usage == null ? new Usage(0, 0) : usage;
      if (now.requests() >= maxPerTenant) {
        return usage;
      }
      admitted[0] = true;
      return new Usage(now.requests() + 1, now.bytes());
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

  /** Body bytes held now, over all requests. */
  long bytesHeld() {
    return totalBytes.get();
  }

  int maxTotal() {
    return maxTotal;
  }

  int maxPerTenant() {
    return maxPerTenant;
  }

  long maxBytes() {
    return maxBytes;
  }

  long maxBytesPerTenant() {
    return maxBytesPerTenant;
  }

  /** Adds {@code more} bytes for {@code tenant} (which has a request in flight), or says which limit stops it. */
  private Refused addBytes(String tenant, long more) {
    if (totalBytes.addAndGet(more) > maxBytes) {
      totalBytes.addAndGet(-more);
      return Refused.BYTES_TOTAL;
    }
    boolean[] added = {false};
    perTenant.computeIfPresent(tenant, (k, usage) -> {
      if (usage.bytes() + more > maxBytesPerTenant) {
        return usage;
      }
      added[0] = true;
      return new Usage(usage.requests(), usage.bytes() + more);
    });
    if (!added[0]) {
      totalBytes.addAndGet(-more);
      return Refused.BYTES_TENANT;
    }
    return null;
  }

  private void releaseBytes(String tenant, long bytes) {
    perTenant.computeIfPresent(tenant, (k, usage) -> new Usage(usage.requests(), usage.bytes() - bytes));
    totalBytes.addAndGet(-bytes);
  }

  private void release(String tenant, long bytes) {
    perTenant.computeIfPresent(tenant, (k, usage) ->
        usage.requests() <= 1 ? null : new Usage(usage.requests() - 1, usage.bytes() - bytes));
    totalBytes.addAndGet(-bytes);
    total.decrementAndGet();
  }
}
