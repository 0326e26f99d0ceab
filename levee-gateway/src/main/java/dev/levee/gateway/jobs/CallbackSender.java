package dev.levee.gateway.jobs;

import dev.levee.anthropic.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts an ended queued request's answer to its feature's callback URL: the body is the job as
 * {@code GET /v1/levee/jobs/{id}} shows it; {@code x-levee-timestamp} (Unix seconds) and {@code
 * x-levee-signature: sha256=<hex HMAC-SHA256 of "timestamp.body" under queue.callback-secret>}
 * let the receiver check it. A non-2xx answer or a network error is tried again after 1 s, 2 s,
 * 4 s … (at most 60 s) up to {@value #MAX_ATTEMPTS} tries, then the job's callback state says
 * {@code failed: …}. URLs are never logged (they often carry a secret), only hosts.
 *
 * <p>Each try is posted under a claim in the store ({@link OwedCallbacks}), so senders polling at
 * once — replicas sharing a PostgreSQL store — never post the same callback together. A claim lasts
 * {@code queue.lease} (default 60 s), at least {@link #MIN_CLAIM}; a sender that dies mid-try loses
 * it then, and a live one (this or another replica) posts the callback again. The state and the time
 * of the next try are stored, so a restart resumes pending deliveries: at least once, and once in the
 * usual case. Thread-safe.
 */
public final class CallbackSender implements AutoCloseable {

  static final int MAX_ATTEMPTS = 6;
  /**
   * The shortest claim a try is posted under: 30 s, twice the longest a try waits (5 s to connect,
   * 10 s for the answer), so a live sender's claim does not run out while it posts.
   */
  static final Duration MIN_CLAIM = Duration.ofSeconds(30);
  /** How many callbacks one {@link #deliverDue} claims at most. */
  private static final int CLAIMS_PER_POLL = 32;
  private static final Logger LOG = LoggerFactory.getLogger(CallbackSender.class);

  private final OwedCallbacks owed;
  private final SecretKeySpec key; // null: unsigned
  private final InstantSource wall;
  private final Duration claimFor;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Executor deliveries;
  private final ExecutorService ownThreads; // null when the deliveries run on an executor given

  /** A sender whose claims last the default {@code queue.lease} (60 s), each try on a virtual thread of its own. */
  public CallbackSender(JobStore store, String secret, InstantSource wall) {
    this(store, secret, wall, QueueConfig.DEFAULT_LEASE, null);
  }

  /**
   * A sender whose claims last {@code lease} ({@code queue.lease}; at least {@link #MIN_CLAIM}), each
   * try on a virtual thread of its own.
   *
   * @param secret {@code queue.callback-secret}; empty: unsigned
   * @param wall the clock of {@code x-levee-timestamp}, of claims and of the next try
   */
  public CallbackSender(JobStore store, String secret, InstantSource wall, Duration lease) {
    this(store, secret, wall, lease, null);
  }

  /**
   * A sender whose claims last the default {@code queue.lease}, and whose tries run on {@code
   * deliveries}: a test runs them when it chooses, to line up what replicas do at the same moment.
   */
  CallbackSender(JobStore store, String secret, InstantSource wall, Executor deliveries) {
    this(store, secret, wall, QueueConfig.DEFAULT_LEASE, deliveries);
  }

  private CallbackSender(JobStore store, String secret, InstantSource wall, Duration lease, Executor deliveries) {
    this.owed = new OwedCallbacks(store.database(),
        store.replicaId() != null ? store.replicaId() : JobStore.newId("sender_"));
    this.key = secret.isEmpty() ? null : new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    this.wall = wall;
    this.claimFor = lease.compareTo(MIN_CLAIM) < 0 ? MIN_CLAIM : lease;
    this.ownThreads = deliveries == null ? Executors.newVirtualThreadPerTaskExecutor() : null;
    this.deliveries = deliveries == null ? ownThreads : deliveries;
  }

  /** Claims every pending callback that is due (up to 32 at a time) and starts posting each. */
  public void deliverDue() {
    Instant now = wall.instant();
    for (OwedCallbacks.Callback claimed : owed.claim(CLAIMS_PER_POLL, now, now.plus(claimFor))) {
      deliveries.execute(() -> deliver(claimed));
    }
  }

  private void deliver(OwedCallbacks.Callback claimed) {
    String id = claimed.job().id();
    String outcome;
    try {
      byte[] body = Json.bytes(JobsHandler.view(claimed.job()));
      String timestamp = Long.toString(wall.instant().getEpochSecond());
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(claimed.url()))
          .timeout(Duration.ofSeconds(10))
          .header("content-type", "application/json")
          .header("x-levee-job", id)
          .header("x-levee-timestamp", timestamp)
          .POST(HttpRequest.BodyPublishers.ofByteArray(body));
      if (key != null) {
        request.header("x-levee-signature", "sha256=" + sign(timestamp, body));
      }
      int status = http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
      outcome = status / 100 == 2 ? null : "HTTP " + status;
    } catch (InterruptedException e) { // closing: the claim stays until its lease runs out, then it is tried again
      Thread.currentThread().interrupt();
      return;
    } catch (Exception e) {
      outcome = e.getClass().getSimpleName();
    }
    try {
      record(claimed, outcome);
    } catch (JobStore.StoreException e) {
      LOG.warn("callback for job {} to {}: cannot record its try ({}); it is tried again once its claim runs out",
          id, host(claimed.url()), e.getMessage());
    }
  }

  /** Records the try of {@code claimed}, {@code outcome} null when it was delivered. */
  private void record(OwedCallbacks.Callback claimed, String outcome) {
    String id = claimed.job().id();
    String host = host(claimed.url());
    boolean current;
    if (outcome == null) {
      current = owed.record(claimed, "delivered", null);
    } else if (claimed.attempts() >= MAX_ATTEMPTS) {
      current = owed.record(claimed, "failed: " + outcome, null);
      if (current) {
        LOG.warn("callback for job {} to {} failed {} times, last: {}; giving up", id, host, MAX_ATTEMPTS, outcome);
      }
    } else {
      long seconds = Math.min(60, 1L << (claimed.attempts() - 1));
      current = owed.record(claimed, "pending", wall.instant().plusSeconds(seconds));
      if (current) {
        LOG.info("callback for job {} to {} failed ({}); trying again in {} s", id, host, outcome, seconds);
      }
    }
    if (!current) {
      LOG.warn("callback for job {} to {}: its claim ran out during try {} ({}) and the callback was claimed again; "
          + "this try is not recorded", id, host, claimed.attempts(), outcome == null ? "delivered" : outcome);
    }
  }

  String sign(String timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is unavailable", e);
    }
  }

  private static String host(String url) {
    try {
      return URI.create(url).getHost();
    } catch (IllegalArgumentException e) {
      return "(malformed URL)";
    }
  }

  @Override
  public void close() {
    if (ownThreads != null) {
      ownThreads.shutdownNow();
    }
    http.close();
  }
}
