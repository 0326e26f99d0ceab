package dev.levee.core.throttle;

import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Client-side adaptive throttling, as in Google's SRE book (chapter 21, "Handling Overload",
 * section "Client-side throttling").
 *
 * <p>Over the last {@code window} (default 2 minutes) the client counts {@code requests}, the
 * attempts the application asked to make (including those this throttle rejected), and
 * {@code accepts}, the attempts the backend accepted (any answer but an overload or rate-limit
 * rejection). Each new attempt is rejected locally, without reaching the backend, with
 * probability
 *
 * <pre>  max(0, (requests − K · accepts) / (requests + 1))</pre>
 *
 * <p>With {@code K = 2} (the book's default) a client keeps sending while the backend accepts at
 * least half of its attempts, and beyond that sends about {@code K · accepts} attempts, so a
 * backend that rejects everything sees a trickle instead of a flood. Larger {@code K} is more
 * permissive, smaller is more aggressive.
 *
 * <p>The window is kept in {@value #BUCKETS} buckets of {@code window / }{@value #BUCKETS} each;
 * counts older than the window are dropped a bucket at a time. Time comes only from the injected
 * {@link Ticker}; one number is drawn from the injected {@link RandomGenerator} per
 * {@link #tryAcquire()}, and only when the rejection probability is above zero.
 *
 * <p>Thread-safe: every method holds this throttle's own lock (never a global one) for a few
 * arithmetic operations. The injected generator is used only under that lock.
 */
public final class AdaptiveThrottle {

  /** The SRE book's multiplier: keep sending while at least half of the attempts are accepted. */
  public static final double DEFAULT_K = 2.0;

  /** The SRE book's history: two minutes. */
  public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(2);

  /** Buckets the window is divided into. */
  public static final int BUCKETS = 120;

  private final double k;
  private final Ticker ticker;
  private final RandomGenerator random;
  private final long bucketNanos;
  private final long origin;
  private final long[] requestsIn = new long[BUCKETS];
  private final long[] acceptsIn = new long[BUCKETS];
  private long currentBucket; // index of the newest bucket, counted from origin
  private long requests;
  private long accepts;

  /**
   * @param k the multiplier {@code K} (> 0; default {@value #DEFAULT_K})
   * @param window how much history counts (at least {@value #BUCKETS} ns; default 2 minutes)
   * @param ticker the source of time
   * @param random the source of the rejection draws
   * @throws IllegalArgumentException when {@code k} is not positive or the window too short
   */
  public AdaptiveThrottle(double k, Duration window, Ticker ticker, RandomGenerator random) {
    if (!(k > 0)) throw new IllegalArgumentException("K must be positive, was " + k);
    Objects.requireNonNull(window, "window");
    if (window.toNanos() < BUCKETS) throw new IllegalArgumentException("window too short: " + window);
    this.k = k;
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.random = Objects.requireNonNull(random, "random");
    this.bucketNanos = window.toNanos() / BUCKETS;
    this.origin = ticker.nanos();
  }

  /** The SRE book's settings: {@code K = 2}, a 2-minute window. */
  public static AdaptiveThrottle sreDefaults(Ticker ticker, RandomGenerator random) {
    return new AdaptiveThrottle(DEFAULT_K, DEFAULT_WINDOW, ticker, random);
  }

  /**
   * Asks to make one attempt and counts it as a request, whether or not it is admitted.
   *
   * @return true when the attempt may go to the backend; false when it must fail locally
   */
  public synchronized boolean tryAcquire() {
    int bucket = roll();
    double p = rejectionProbabilityNow();
    requests++;
    requestsIn[bucket]++;
    return p <= 0 || random.nextDouble() >= p;
  }

  /** Records that the backend accepted an attempt this throttle admitted. */
  public synchronized void onAccepted() {
    int bucket = roll();
    accepts++;
    acceptsIn[bucket]++;
  }

  /** The probability that the next attempt is rejected locally, in {@code [0, 1)}. */
  public synchronized double rejectionProbability() {
    roll();
    return rejectionProbabilityNow();
  }

  /** Requests counted inside the window now. */
  public synchronized long requests() {
    roll();
    return requests;
  }

  /** Accepts counted inside the window now. */
  public synchronized long accepts() {
    roll();
    return accepts;
  }

  private double rejectionProbabilityNow() {
    return Math.max(0, (requests - k * accepts) / (requests + 1));
  }

  /** Drops buckets that fell out of the window; returns the ring slot of the current bucket. */
  private int roll() {
    long now = Math.max(0, ticker.nanos() - origin) / bucketNanos;
    if (now > currentBucket) {
      long stale = Math.min(now - currentBucket, BUCKETS);
      for (long b = currentBucket + 1; b <= currentBucket + stale; b++) {
        int slot = (int) (b % BUCKETS);
        requests -= requestsIn[slot];
        accepts -= acceptsIn[slot];
        requestsIn[slot] = 0;
        acceptsIn[slot] = 0;
      }
      currentBucket = now;
    }
    return (int) (currentBucket % BUCKETS);
  }

  @Override
  public synchronized String toString() {
    return "AdaptiveThrottle[K=" + k + ", requests " + requests + ", accepts " + accepts + "]";
  }
}
