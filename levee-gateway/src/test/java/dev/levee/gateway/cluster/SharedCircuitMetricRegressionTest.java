package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression: with {@code cluster:} sharing the breakers, {@code levee_circuit_state} showed each
 * replica's own breaker, so a replica whose calls were refused by the cluster's OPEN circuit
 * reported 0 (closed). The gauge now reads the state the replica's gate enforces: the shared one
 * while Redis answers. Two gateways on the real Redis at 127.0.0.1:6379.
 */
class SharedCircuitMetricRegressionTest {

  private static final Target PRIMARY = new Target("emu", "emu-529");

  private final RedisFixture redis = new RedisFixture();
  private final List<Gateway> replicas = new ArrayList<>();
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private Emulator emulator;

  @AfterEach
  void stop() throws Exception {
    for (Gateway g : replicas) {
      g.close();
    }
    if (emulator != null) {
      emulator.close();
    }
    http.close();
    redis.close();
  }

  @Test
  void aReplicaWhoseLocalBreakerIsClosedReportsTheClustersOpenCircuit() throws Exception {
    emulator = Emulator.start(EmulatorOptions.defaults());
    String yaml = """
        server: { port: 0 }
        upstreams:
          emu:
            url: ${EMU}
        models:
          smart: { chain: [emu/emu-529, emu/claude-fallback] }
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 2, window: 60s, open-for: 60s }
        queue: { folder: %s }
        cluster: { redis: "%s", name: %s, command-timeout: 500ms }
        """.formatted(Files.createTempDirectory("levee-queue"), RedisFixture.REDIS, redis.config.name());
    GatewayConfig config = new ConfigLoader(Map.of("EMU", emulator.baseUrl())::get).parse(yaml, "cluster.yaml");
    for (int i = 0; i < 2; i++) {
      Gateway gateway = Gateway.start(config);
      replicas.add(gateway);
      assertThat(gateway.cluster().orElseThrow().link().awaitShared(Duration.ofSeconds(5))).isTrue();
    }
    Gateway opener = replicas.get(0);
    Gateway other = replicas.get(1);

    for (int i = 0; i < 2; i++) { // both failures on the first replica: the circuit opens for the cluster
      assertThat(send(opener, i).statusCode()).isEqualTo(200); // answered by the fallback
    }
    assertThat(RedisFixture.eventually(Duration.ofSeconds(5),
        () -> other.chain().breakers().gate(PRIMARY).state() == CircuitState.OPEN)).isTrue();
    assertThat(other.chain().breakers().of(PRIMARY).state()).as("the other replica's own breaker saw nothing")
        .isEqualTo(CircuitState.CLOSED);

    assertThat(scrape(other)).contains("levee_circuit_state{target=\"emu/emu-529\"} 2.0");
    assertThat(scrape(opener)).contains("levee_circuit_state{target=\"emu/emu-529\"} 2.0");
  }

  private HttpResponse<String> send(Gateway replica, int n) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(replica.baseUrl() + "/v1/messages"))
        .timeout(Duration.ofSeconds(20))
        .header("content-type", "application/json")
        .header("x-api-key", "sk-test-client-key")
        .header("anthropic-version", "2023-06-01")
        .POST(HttpRequest.BodyPublishers.ofString(
            "{\"model\":\"smart\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"hi " + n + "\"}]}"))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private String scrape(Gateway replica) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(replica.baseUrl() + "/metrics")).GET().build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }
}
