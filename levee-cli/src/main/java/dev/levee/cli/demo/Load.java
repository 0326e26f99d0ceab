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

/**
 * Open-loop load on one world: requests arrive at a fixed rate whatever happens to earlier ones,
 * as real users do, through official Java SDK clients with their own retries off. Every third
 * request streams. Counts per second of completion: answered by the primary, by the fallback,
 * failed.
 */
final class Load implements AutoCloseable {

  private final World world;
  private final List<AnthropicClient> clients = new ArrayList<>();
  private final ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor();
  private final AtomicInteger sequence = new AtomicInteger();
  final AtomicIntegerArray sent;
  final AtomicIntegerArray primary;
  final AtomicIntegerArray fallback;
  final AtomicIntegerArray failed;
  private volatile long startNanos;

  Load(World world, int clientCount, int seconds) {
    this.world = world;
    for (int i = 0; i < clientCount; i++) {
      clients.add(AnthropicOkHttpClient.builder()
          .baseUrl(world.gateway.baseUrl().toString())
          .apiKey("demo-key")
          .maxRetries(0)
          .timeout(Duration.ofSeconds(30))
          .build());
    }
    int slots = seconds + 30;
    sent = new AtomicIntegerArray(slots);
    primary = new AtomicIntegerArray(slots);
    fallback = new AtomicIntegerArray(slots);
    failed = new AtomicIntegerArray(slots);
  }

  void start(long startNanos) {
    this.startNanos = startNanos;
  }

  /**
   * Sends one request and waits for it, before time zero: the SDK's classes load and the JIT warms
   * up here, not during the incident (on a loaded machine that took longer than a short incident).
   * Its outcome does not matter and is not counted.
   */
  void warmUp() {
    try {
      clients.getFirst().messages().create(MessageCreateParams.builder().model(World.ALIAS).maxTokens(16)
          .addUserMessage("Warm-up question: is the river in its bed?").build());
    } catch (RuntimeException e) {
      // an incident that began already: the classes are loaded all the same
    }
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
        .addUserMessage("Demo question number " + n + ": what keeps a river in its bed?").build();
    try {
      Message message = n % 3 == 0 ? streamed(client, params) : client.messages().create(params);
      boolean byPrimary = message.model().asString().equals(World.PRIMARY);
      (byPrimary ? primary : fallback).incrementAndGet(second());
    } catch (RuntimeException e) {
      failed.incrementAndGet(second());
    }
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

  int total(AtomicIntegerArray counts) {
    int sum = 0;
    for (int i = 0; i < counts.length(); i++) {
      sum += counts.get(i);
    }
    return sum;
  }

  /** Waits for requests in flight to end. */
  void drain(Duration max) throws InterruptedException {
    requests.shutdown();
    requests.awaitTermination(max.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    requests.shutdownNow();
    clients.forEach(AnthropicClient::close);
  }
}
