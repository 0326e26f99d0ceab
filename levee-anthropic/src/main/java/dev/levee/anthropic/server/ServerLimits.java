package dev.levee.anthropic.server;

import dev.levee.core.time.Spans;
import java.time.Duration;
import java.util.Objects;

/**
 * The limits of one Levee HTTP server (the gateway's {@code server.*} keys; the emulator takes
 * the same defaults). Sized for long LLM streams on virtual threads: thousands of concurrent
 * requests, each holding a connection for minutes, while slow or stuck clients are cut off and
 * {@code /health} stays answerable.
 *
 * @param maxConnections open client connections at most (default 10,000); further connections
 *     wait in the accept queue. Handlers run on virtual threads, at most this many plus a
 *     reserve of 256 at once (Jetty's default cap of 200 no longer applies)
 * @param acceptQueue the listen backlog of not yet accepted connections (default 1,024)
 * @param headerTimeout the longest a client may take from the first byte of a request to the
 *     end of its headers (default 10 s); it also opens the body's allowance. A client too slow
 *     gets 408 {@code timeout_error} and the connection is closed; a new connection that sends no
 *     byte for this long (at least 5 s) is closed without an answer ({@link
 *     VirtualThreadServer#silentConnectionsClosed})
 * @param minBodyRate the slowest average body upload accepted, bytes per second, after the
 *     {@code headerTimeout} allowance (default 1,024): a body of n bytes must have arrived
 *     within {@code headerTimeout + n / minBodyRate} of the request's first byte, else 408
 * @param maxConcurrent requests in flight at most, over all tenants (default 4,096); beyond it a
 *     new request gets an immediate 529 {@code overloaded_error} with {@code retry-after}
 * @param maxConcurrentPerTenant requests in flight at most per tenant, a tenant being a hash of
 *     the API key (default 2,048); beyond it a new request gets an immediate 429 {@code
 *     rate_limit_error} with {@code retry-after}
 * @param shutdownGrace how long a stopping server lets requests in flight finish before it ends
 *     them: streams with an {@code event: error} ({@code overloaded_error}), others with 503 and
 *     {@code retry-after} (default 30 s)
 * @param maxBody the largest request body the server buffers, bytes (default 32 MiB, the API's
 *     limit); a larger declared body is left to the handler, which refuses it with 413
 * @param sendTimeout the longest a write to a client may wait without the client taking a byte of
 *     it (default 60 s, as nginx's {@code send_timeout}; at least 1 s): the connection is then
 *     closed and the write fails, as if the client had gone ({@link SendDeadline}). Only a write
 *     that is pending counts: a handler that writes nothing for minutes (a silent upstream), or a
 *     client that reads slowly but steadily, is never cut by it
 * @param maxBodyMemory the bytes of request bodies the server holds at once, over every request in
 *     flight (default {@link #defaultBodyMemory}: a quarter of the JVM's maximum heap; never less than
 *     twice {@code maxBody}), a tenant at most half of it. Each body counts as it arrives (the
 *     array it is read into) until its request ends: one that does not fit is read on and dropped,
 *     then answered 529 {@code overloaded_error} (the server's bytes) or 429 {@code
 *     rate_limit_error} (the tenant's half) with {@code retry-after}; a Message Batch whose
 *     requests need more than a tenant's half to read, 413 {@code request_too_large}. Without it,
 *     forty 25 MB uploads at once (PDFs, say) fill a 1 GiB heap, and the server's {@code
 *     OutOfMemoryError} fails whatever allocates next, for every tenant
 */
public record ServerLimits(int maxConnections, int acceptQueue, Duration headerTimeout, long minBodyRate,
    int maxConcurrent, int maxConcurrentPerTenant, Duration shutdownGrace, long maxBody, Duration sendTimeout,
    long maxBodyMemory) {

  /** The shortest {@link #sendTimeout()} accepted. */
  public static final Duration MIN_SEND_TIMEOUT = Duration.ofSeconds(1);

  /** Every default, as documented on each component. */
  public static final ServerLimits DEFAULT = new ServerLimits(10_000, 1_024, Duration.ofSeconds(10), 1_024,
      4_096, 2_048, Duration.ofSeconds(30), 32L << 20, Duration.ofSeconds(60), defaultBodyMemory(32L << 20));

  /** The virtual threads kept beyond {@link #maxConnections()} (control lane, internal tasks). */
  static final int THREAD_RESERVE = 256;

  /** @throws IllegalArgumentException when a value is out of range (the message names it) */
  public ServerLimits {
    positive(maxConnections, "max-connections");
    positive(acceptQueue, "accept-queue");
    positive(maxConcurrent, "max-concurrent");
    positive(maxConcurrentPerTenant, "max-concurrent-per-tenant");
    positive(minBodyRate, "min-body-rate");
    positive(maxBody, "max-body");
    if (maxBodyMemory / 2 < maxBody) {
      throw new IllegalArgumentException("max-body-memory must be at least twice max-body (" + maxBody
          + " bytes), so that one tenant's half holds a body of max-body, was " + maxBodyMemory);
    }
    Objects.requireNonNull(headerTimeout, "header-timeout");
    Objects.requireNonNull(shutdownGrace, "shutdown-grace");
    Objects.requireNonNull(sendTimeout, "send-timeout");
    if (!headerTimeout.isPositive()) {
      throw new IllegalArgumentException("header-timeout must be positive, was " + Spans.of(headerTimeout));
    }
    if (shutdownGrace.isNegative()) {
      throw new IllegalArgumentException("shutdown-grace must not be negative, was " + Spans.of(shutdownGrace));
    }
    if (sendTimeout.compareTo(MIN_SEND_TIMEOUT) < 0) {
      throw new IllegalArgumentException("send-timeout must be at least " + Spans.of(MIN_SEND_TIMEOUT) + ", was "
          + Spans.of(sendTimeout));
    }
  }

  /**
   * The bytes of request bodies held at once when none is configured: a quarter of the JVM's
   * maximum heap ({@link Runtime#maxMemory()}), which leaves room for the copies a request makes
   * of its body (a retry's rewrite, a batch's parse), and at least twice {@code maxBody}.
   */
  public static long defaultBodyMemory(long maxBody) {
    return Math.max(Runtime.getRuntime().maxMemory() / 4, 2 * maxBody);
  }

  /**
   * The limits as they were before {@code maxBodyMemory}, which is {@link #defaultBodyMemory}.
   *
   * @throws IllegalArgumentException when a value is out of range (the message names it)
   */
  public ServerLimits(int maxConnections, int acceptQueue, Duration headerTimeout, long minBodyRate,
      int maxConcurrent, int maxConcurrentPerTenant, Duration shutdownGrace, long maxBody, Duration sendTimeout) {
    this(maxConnections, acceptQueue, headerTimeout, minBodyRate, maxConcurrent, maxConcurrentPerTenant, shutdownGrace,
        maxBody, sendTimeout, defaultBodyMemory(maxBody));
  }

  /**
   * The limits as they were before {@code sendTimeout}, which is the default, 60 s: an embedder's
   * call of the eight-argument constructor still compiles.
   *
   * @throws IllegalArgumentException when a value is out of range (the message names it)
   */
  public ServerLimits(int maxConnections, int acceptQueue, Duration headerTimeout, long minBodyRate,
      int maxConcurrent, int maxConcurrentPerTenant, Duration shutdownGrace, long maxBody) {
    this(maxConnections, acceptQueue, headerTimeout, minBodyRate, maxConcurrent, maxConcurrentPerTenant, shutdownGrace,
        maxBody, Duration.ofSeconds(60));
  }

  /** These limits with other concurrency maxima (requests in flight in total and per tenant). */
  public ServerLimits withMaxConcurrent(int total, int perTenant) {
    return new ServerLimits(maxConnections, acceptQueue, headerTimeout, minBodyRate, total, perTenant, shutdownGrace,
        maxBody, sendTimeout, maxBodyMemory);
  }

  /** These limits with another header-read deadline and minimum body rate (bytes per second). */
  public ServerLimits withTimeouts(Duration headerTimeout, long minBodyRate) {
    return new ServerLimits(maxConnections, acceptQueue, headerTimeout, minBodyRate, maxConcurrent,
        maxConcurrentPerTenant, shutdownGrace, maxBody, sendTimeout, maxBodyMemory);
  }

  /** These limits with another shutdown grace. */
  public ServerLimits withShutdownGrace(Duration grace) {
    return new ServerLimits(maxConnections, acceptQueue, headerTimeout, minBodyRate, maxConcurrent,
        maxConcurrentPerTenant, grace, maxBody, sendTimeout, maxBodyMemory);
  }

  /** These limits with another send timeout (at least 1 s). */
  public ServerLimits withSendTimeout(Duration timeout) {
    return new ServerLimits(maxConnections, acceptQueue, headerTimeout, minBodyRate, maxConcurrent,
        maxConcurrentPerTenant, shutdownGrace, maxBody, timeout, maxBodyMemory);
  }

  /** These limits with another most bytes of request bodies held at once (at least twice {@link #maxBody()}). */
  public ServerLimits withMaxBodyMemory(long bytes) {
    return new ServerLimits(maxConnections, acceptQueue, headerTimeout, minBodyRate, maxConcurrent,
        maxConcurrentPerTenant, shutdownGrace, maxBody, sendTimeout, bytes);
  }

  private static void positive(long value, String name) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1, was " + value);
    }
  }
}
