package dev.levee.gateway.e2e;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.GatewayClock;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.jobs.ThrowAwayStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * An emulator and a gateway in front of it, on loopback, plus the official Java SDK pointed at
 * the gateway with its own retries off. The gateway's YAML names the emulator's upstream {@code
 * emu}; write {@code ${EMU}} for its URL. Each harness has a throw-away job store folder of its own
 * ({@link ThrowAwayStore}), deleted when it closes: write {@code ${QUEUE}} for it in a {@code queue:}
 * section ({@code folder: ${QUEUE}}); a YAML without one gets {@code queue: { folder: ${QUEUE} }}.
 */
final class Harness implements AutoCloseable {

  /** The header every Anthropic client sends, and the value {@link #post} and the GETs send unless told otherwise. */
  static final String VERSION = "anthropic-version";

  static final String DEFAULT_VERSION = "2023-06-01";

  static final String BASE_POLICY = """
      policy:
        deadline: 10s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms }
        breaker: default
        retry-budget: { max: 100, ratio: 0.5 }
        stream: { ttft-timeout: 3s, idle-timeout: 2s }
      """;

  final Emulator emulator;
  final Gateway gateway;
  final AnthropicClient sdk;
  private final ThrowAwayStore store;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  private Harness(Emulator emulator, Gateway gateway, ThrowAwayStore store) {
    this.emulator = emulator;
    this.gateway = gateway;
    this.store = store;
    this.sdk = sdk(Duration.ofSeconds(20));
  }

  /** Starts an emulator with default options and a gateway with {@code yaml}. */
  static Harness start(String yaml) throws Exception {
    return start(EmulatorOptions.defaults(), yaml);
  }

  static Harness start(EmulatorOptions options, String yaml) throws Exception {
    return start(options, yaml, "");
  }

  /** With extra {@code server:} settings, e.g. {@code max-body: 1KiB}. */
  static Harness start(EmulatorOptions options, String yaml, String serverSettings) throws Exception {
    return start(options, yaml, serverSettings, GatewayClock.system());
  }

  /** A gateway on {@code clock} (virtual time in tests). */
  static Harness start(EmulatorOptions options, String yaml, String serverSettings, GatewayClock clock)
      throws Exception {
    Emulator emulator = Emulator.start(options);
    ThrowAwayStore store = null;
    try {
      store = ThrowAwayStore.create("levee-queue");
      String full = "upstreams:\n  emu:\n    url: ${EMU}\n" + yaml
          + (yaml.contains("queue:") ? "" : "queue: { folder: \"${QUEUE}\" }\n");
      String server = "server: { port: 0" + (serverSettings.isEmpty() ? "" : ", " + serverSettings) + " }\n";
      GatewayConfig config = new ConfigLoader(Map.of("EMU", emulator.baseUrl(), "QUEUE", store.folder().toString())::get)
          .parse(server + full, "test.yaml");
      return new Harness(emulator, Gateway.start(config, clock), store);
    } catch (Exception | Error e) {
      emulator.close();
      if (store != null) {
        store.close();
      }
      throw e;
    }
  }

  /** A new SDK client for the gateway with the given timeout and no retries. */
  AnthropicClient sdk(Duration timeout) {
    AnthropicClient client = AnthropicOkHttpClient.builder()
        .baseUrl(gateway.baseUrl().toString())
        .apiKey("sk-test-client-key")
        .maxRetries(0)
        .timeout(timeout)
        .build();
    closeables.add(client::close);
    return client;
  }

  static MessageCreateParams params(String model, String prompt) {
    return MessageCreateParams.builder().model(model).maxTokens(1024).addUserMessage(prompt).build();
  }

  /** Streams and accumulates a message through the gateway. */
  Message streamed(MessageCreateParams params) {
    return streamed(sdk, params);
  }

  static Message streamed(AnthropicClient client, MessageCreateParams params) {
    MessageAccumulator accumulator = MessageAccumulator.create();
    try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(params)) {
      stream.stream().forEach(accumulator::accumulate);
    }
    return accumulator.message();
  }

  /** The text of all text blocks of a message. */
  static String text(Message message) {
    return message.content().stream().flatMap(b -> b.text().stream()).map(t -> t.text()).collect(Collectors.joining());
  }

  /** The emulator's answer for {@code prompt}, asked directly (content does not depend on the model). */
  String expectedText(String prompt) {
    AnthropicClient direct = AnthropicOkHttpClient.builder().baseUrl(emulator.baseUrl()).apiKey("k").maxRetries(0)
        .build();
    try {
      return text(direct.messages().create(params("emu-ok", prompt)));
    } finally {
      direct.close();
    }
  }

  /** Emulator log entries for {@code model}. */
  List<LogEntry> attempts(String model) {
    return emulator.log().stream().filter(e -> model.equals(e.model())).toList();
  }

  /** Waits (without sleeping blindly) until the emulator log satisfies {@code condition}. */
  List<LogEntry> awaitLog(Predicate<? super List<LogEntry>> condition) throws InterruptedException, TimeoutException {
    return emulator.awaitLog(condition, Duration.ofSeconds(10));
  }

  /**
   * A raw HTTP exchange with the gateway; {@code content-type: application/json} and {@code
   * anthropic-version: 2023-06-01} unless {@code headers} name them (as every Anthropic client
   * sends them; the gateway refuses a body of another type, and a request without a version).
   */
  HttpResponse<String> post(String path, String body, Map<String, String> headers) throws Exception {
    return post(path, body, headers, Duration.ofSeconds(20));
  }

  /** {@link #post(String, String, Map)}, the client waiting at most {@code timeout} for the answer. */
  HttpResponse<String> post(String path, String body, Map<String, String> headers, Duration timeout) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path))
        .timeout(timeout)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(request::header);
    if (headers.keySet().stream().noneMatch("content-type"::equalsIgnoreCase)) {
      request.header("content-type", "application/json");
    }
    if (headers.keySet().stream().noneMatch(VERSION::equalsIgnoreCase)) {
      request.header(VERSION, DEFAULT_VERSION);
    }
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  /** A GET with {@code x-api-key: key} (jobs and batches are per tenant) and {@code anthropic-version: 2023-06-01}. */
  HttpResponse<String> getWith(String path, String key) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path)).header("x-api-key", key)
          .header(VERSION, DEFAULT_VERSION).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  /** A GET with {@code anthropic-version: 2023-06-01} and no key. */
  HttpResponse<String> get(String path) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path)).header(VERSION, DEFAULT_VERSION)
          .GET().build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  /**
   * {@code /metrics} once it contains every one of {@code lines}, or as it is after 10 s. The access
   * record of a request is written just after its answer went out, on the server's thread: a client
   * holding its answer may scrape before it is counted, and the counts of two requests sent one
   * after the other may land in either order — so wait for each line asserted on, not for the last
   * request's alone.
   */
  String awaitMetrics(String... lines) throws Exception {
    return awaitMetrics(metrics -> Arrays.stream(lines).allMatch(metrics::contains));
  }

  /** {@code /metrics} once {@code ready} holds for its text, or as it is after 10 s. */
  String awaitMetrics(Predicate<String> ready) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    String metrics = get("/metrics").body();
    while (!ready.test(metrics) && System.nanoTime() < until) {
      Thread.onSpinWait();
      metrics = get("/metrics").body();
    }
    return metrics;
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    try (store; emulator) { // the store's folder goes last, once the gateway let go of it
      gateway.close();
    }
  }

  /** The folder of this harness's throw-away job store ({@code ${QUEUE}}): deleted by {@link #close}. */
  java.nio.file.Path queueFolder() {
    return store.folder();
  }
}
