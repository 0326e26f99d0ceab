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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * {@code failed: …}. The state is stored, so a restart resumes pending deliveries: at least once,
 * and once in the usual case. URLs are never logged (they often carry a secret), only hosts.
 */
public final class CallbackSender implements AutoCloseable {

  static final int MAX_ATTEMPTS = 6;
  private static final Logger LOG = LoggerFactory.getLogger(CallbackSender.class);

  private final JobStore store;
  private final SecretKeySpec key; // null: unsigned
  private final InstantSource wall;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Executor deliveries;
  private final ExecutorService ownThreads; // null when the deliveries run on an executor given
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
  private final Map<String, Instant> notBefore = new ConcurrentHashMap<>();

  /** A sender whose deliveries each run on a virtual thread of its own. */
  public CallbackSender(JobStore store, String secret, InstantSource wall) {
    this(store, secret, wall, null);
  }

  /**
   * A sender whose deliveries run on {@code deliveries} (null: a virtual thread each): a test runs
   * them when it chooses, to line up what replicas do at the same moment.
   */
  CallbackSender(JobStore store, String secret, InstantSource wall, Executor deliveries) {
    this.store = store;
    this.key = secret.isEmpty() ? null : new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    this.wall = wall;
    this.ownThreads = deliveries == null ? Executors.newVirtualThreadPerTaskExecutor() : null;
    this.deliveries = deliveries == null ? ownThreads : deliveries;
  }

  /** Starts delivering every pending callback that is due and not already on its way. */
  public void deliverDue() {
    Instant now = wall.instant();
    for (JobStore.Callback callback : store.pendingCallbacks(32)) {
      String id = callback.job().id();
      Instant due = notBefore.get(id);
      if ((due == null || !due.isAfter(now)) && inFlight.add(id)) {
        deliveries.execute(() -> deliver(callback));
      }
    }
  }

  private void deliver(JobStore.Callback callback) {
    String id = callback.job().id();
    String outcome;
    try {
      byte[] body = Json.bytes(JobsHandler.view(callback.job()));
      String timestamp = Long.toString(wall.instant().getEpochSecond());
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(callback.url()))
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
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      inFlight.remove(id);
      return;
    } catch (Exception e) {
      outcome = e.getClass().getSimpleName();
    }
    try {
      if (outcome == null) {
        store.callbackTried(id, "delivered");
        notBefore.remove(id);
      } else if (callback.attempts() + 1 >= MAX_ATTEMPTS) {
        store.callbackTried(id, "failed: " + outcome);
        notBefore.remove(id);
        LOG.warn("callback for job {} to {} failed {} times, last: {}; giving up", id, host(callback.url()),
            MAX_ATTEMPTS, outcome);
      } else {
        store.callbackTried(id, "pending");
        long seconds = Math.min(60, 1L << callback.attempts());
        notBefore.put(id, wall.instant().plusSeconds(seconds));
        LOG.info("callback for job {} to {} failed ({}); trying again in {} s", id, host(callback.url()), outcome,
            seconds);
      }
    } finally {
      inFlight.remove(id);
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
