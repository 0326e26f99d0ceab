package dev.levee.cli.demo;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * Open-loop load on one world: requests arrive at a fixed rate whatever happens to earlier ones,
 * as real users do, through official Java SDK clients with their own retries off. Every third
 * request streams. Counts per second of completion: answered by the primary, by the fallback,
 * failed.
 *
 * <p>Each request carries its nominal send time (its index over the rate) for the emulator to
 * judge it by ({@code x-emulator-incident-ms}, the emulator's README): on a CPU-starved machine a
 * request sent during the outage could reach the emulator after it, and the baseline's loss fell
 * to the drill test's threshold (session 13).
 */
final class Load implements AutoCloseable {

  /** A model no incident strikes, asked directly (no alias) by {@link #warmUp()}. */
  private static final String WARM_UP_MODEL = "claude-haiku-4-5";

  /**
   * The SDK clients' timeout: above the gateways' deadline (120 s, {@link World}), so a client
   * never gives up on a request the gateway still works on, however slow a busy machine makes it.
   */
  static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(180);

  private final World world;
  private final List<AnthropicClient> clients = new ArrayList<>();
  private final ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor();
  private final int rate;
  private final AtomicInteger sequence = new AtomicInteger();
  final AtomicIntegerArray sent;
  final AtomicIntegerArray primary;
  final AtomicIntegerArray fallback;
  final AtomicIntegerArray failed;
  /** How long each answered request took the client, from its send to its answer's end, in µs. */
  final ConcurrentHistogram answeredMicros = new ConcurrentHistogram(3);
  private volatile long startNanos;

  /** @param rate the requests {@link #fire()} sends per second, for each one's nominal send time */
  Load(World world, int clientCount, int seconds, int rate) {
    this.world = world;
    this.rate = rate;
    for (int i = 0; i < clientCount; i++) {
      clients.add(AnthropicOkHttpClient.builder()
          .baseUrl(world.gateway.baseUrl().toString())
          .apiKey("demo-key")
          .maxRetries(0)
          .timeout(CLIENT_TIMEOUT)
          .build());
    }
    int slots = seconds + 30;
    sent = new AtomicIntegerArray(slots);
    primary = new AtomicIntegerArray(slots);
    fallback = new AtomicIntegerArray(slots);
    failed = new AtomicIntegerArray(slots);
  }

  /**
   * Sends one JSON and one streamed request through every client before the drill, to a model
   * the incident spares, so that the first second of the drill does not pay for class loading and
   * connection set-up (on a busy machine that took seconds, and the load then missed the incident).
   */
  void warmUp() {
    MessageCreateParams params = MessageCreateParams.builder().model(WARM_UP_MODEL).maxTokens(16)
        .addUserMessage("warming up").build();
    for (AnthropicClient client : clients) {
      client.messages().create(params);
      streamed(client, params);
    }
  }

  void start(long startNanos) {
    this.startNanos = startNanos;
  }

  /** Sends one request now, on its own virtual thread. */
  void fire() {
    int n = sequence.getAndIncrement();
    sent.incrementAndGet(second());
    requests.submit(() -> send(n));
  }

  private void send(int n) {
    AnthropicClient client = clients.get(n % clients.size());
    MessageCreateParams params = MessageCreateParams.builder().model(World.ALIAS).maxTokens(256)
        .addUserMessage("Demo question number " + n + ": what keeps a river in its bed?")
        .putAdditionalHeader(INCIDENT_TIME, String.valueOf(sentAtMillis(n, rate))).build();
    long begin = System.nanoTime();
    try {
      Message message = n % 3 == 0 ? streamed(client, params) : client.messages().create(params);
      answeredMicros.recordValue((System.nanoTime() - begin) / 1_000);
      boolean byPrimary = message.model().asString().equals(World.PRIMARY);
      (byPrimary ? primary : fallback).incrementAndGet(second());
    } catch (RuntimeException e) {
      failed.incrementAndGet(second());
    }
  }

  /** The emulator's header for the scenario time a request is judged at (its README). */
  static final String INCIDENT_TIME = "x-emulator-incident-ms";

  /** When request {@code n} (from 0) is due at {@code rate} a second, in ms from the drill's start. */
  static long sentAtMillis(int n, int rate) {
    return n * 1000L / rate;
  }

  private static Message streamed(AnthropicClient client, MessageCreateParams params) {
    MessageAccumulator accumulator = MessageAccumulator.create();
    try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(params)) {
      stream.stream().forEach(accumulator::accumulate);
    }
    return accumulator.message();
  }

  private int second() {
    int s = (int) ((System.nanoTime() - startNanos) / 1_000_000_000L);
    return Math.min(Math.max(s, 0), sent.length() - 1);
  }

  /** The answered requests' latency at {@code percentile} (0–100), in seconds; 0 when none was answered. */
  double latencySeconds(double percentile) {
    return answeredMicros.getTotalCount() == 0 ? 0 : answeredMicros.getValueAtPercentile(percentile) / 1e6;
  }

  int total(AtomicIntegerArray counts) {
    int sum = 0;
    for (int i = 0; i < counts.length(); i++) {
      sum += counts.get(i);
    }
    return sum;
  }

  /**
   * Waits for every request in flight to end: each ends within {@link #CLIENT_TIMEOUT} of its
   * send, answered or failed. (A shorter wait cut the requests a busy machine had not finished
   * yet, and {@link #close()} then counted them failed.)
   */
  void drain() throws InterruptedException {
    requests.shutdown();
    if (!requests.awaitTermination(CLIENT_TIMEOUT.toMillis() + 10_000, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("requests still in flight " + CLIENT_TIMEOUT + " after the last was sent");
    }
  }

  @Override
  public void close() {
    requests.shutdownNow();
    clients.forEach(AnthropicClient::close);
  }
}
