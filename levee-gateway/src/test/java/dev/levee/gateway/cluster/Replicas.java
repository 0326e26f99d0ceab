package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.GatewayClock;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.jobs.ThrowAwayStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Replicas of one cluster for tests: {@code count} gateways in this JVM (each its own port and
 * {@link Cluster}, the same {@code cluster.name}) in front of one emulator (upstream {@code emu}),
 * each its own queue folder, all sharing the Redis at {@code redisUrl}; started only once every
 * replica says SHARED (within 5 s). {@link #send} posts request {@code n} round robin.
 */
final class Replicas implements AutoCloseable {

  final Emulator emulator;
  final List<Gateway> gateways = new ArrayList<>();
  private final List<ThrowAwayStore> stores = new ArrayList<>(); // deleted once their gateways closed
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  /**
   * @param sections the config after {@code server} and {@code upstreams} ({@code models:}, {@code policy:} …)
   * @param clusterName the {@code cluster.name} all replicas share
   */
  Replicas(int count, String sections, String redisUrl, String clusterName) throws Exception {
    this(count, sections, redisUrl, clusterName, EmulatorOptions.defaults(), GatewayClock.system());
  }

  /** Replicas on {@code clock} (virtual time: one {@code ManualClock} for all) before an emulator with {@code options}. */
  Replicas(int count, String sections, String redisUrl, String clusterName, EmulatorOptions options,
      GatewayClock clock) throws Exception {
    emulator = Emulator.start(options);
    try {
      String yaml = "server: { port: 0 }\nupstreams:\n  emu:\n    url: ${EMU}\n" + sections
          + "queue: { folder: \"${QUEUE}\" }\n" // each replica's own: an embedded job store is one process's
          + "cluster: { redis: \"" + redisUrl + "\", name: " + clusterName
          + ", command-timeout: 500ms }\n"; // generous: two shared CPU cores
      for (int i = 0; i < count; i++) {
        ThrowAwayStore store = ThrowAwayStore.create("levee-queue");
        stores.add(store);
        Map<String, String> env = Map.of("EMU", emulator.baseUrl(), "QUEUE", store.folder().toString());
        GatewayConfig config = new ConfigLoader(env::get).parse(yaml, "cluster.yaml");
        Gateway gateway = Gateway.start(config, clock);
        gateways.add(gateway);
        assertThat(gateway.cluster().orElseThrow().link().awaitShared(Duration.ofSeconds(5))).isTrue();
      }
    } catch (Exception | AssertionError e) {
      close();
      throw e;
    }
  }

  Gateway get(int n) {
    return gateways.get(n % gateways.size());
  }

  /** Request {@code n} (its prompt says {@code hi n}) for {@code model} to replica {@code n % count}. */
  HttpResponse<String> send(int n, String model, Map<String, String> headers) throws Exception {
    return send(get(n), n, model, headers);
  }

  /** Request {@code n} for {@code model} to {@code replica}. */
  HttpResponse<String> send(Gateway replica, int n, String model, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(replica.baseUrl() + "/v1/messages"))
        .timeout(Duration.ofSeconds(20))
        .header("content-type", "application/json")
        .header("x-api-key", "sk-test-client-key")
        .header("anthropic-version", "2023-06-01")
        .POST(HttpRequest.BodyPublishers.ofString(
            "{\"model\":\"" + model + "\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"hi " + n + "\"}]}"));
    headers.forEach(request::setHeader); // in place of the defaults: two x-api-key lines are refused
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A GET of {@code path} on {@code replica}. */
  HttpResponse<String> get(Gateway replica, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(replica.baseUrl() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A request through this fixture's client (the admin API, say). */
  HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() throws Exception {
    for (Gateway g : gateways) {
      g.close();
    }
    emulator.close();
    http.close();
    stores.forEach(ThrowAwayStore::close);
  }
}
