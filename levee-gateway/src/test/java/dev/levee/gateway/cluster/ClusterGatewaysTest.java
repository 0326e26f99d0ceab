package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.Gateway;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 14, phase 2: three gateways in one JVM (each its own port and its own {@link Cluster}, the
 * same {@code cluster.name}) in front of one emulator, requests spread round-robin, against the
 * real Redis on 127.0.0.1:6379. What the emulator's log shows is what all three sent together.
 */
class ClusterGatewaysTest {

  private static final String PRIMARY = "emu-529";

  @RegisterExtension
  final ReplicasOnRedis redis = new ReplicasOnRedis();
  private Replicas cluster;
  private List<Gateway> replicas;

  @Test
  void theBreakerOpensOnFailuresSummedOverReplicasAndLetsOneTrialThroughInTotal() throws Exception {
    start("""
        models:
          smart: { chain: [emu/emu-529, emu/claude-fallback] }
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 5, window: 60s, open-for: 10s }
          retry-budget: { max: 1000, ratio: 0 }
        """); // open-for: the 100-request burst after the one trial must end before the circuit half-opens again

    for (int i = 0; i < 5; i++) { // round robin: no replica sees more than two failures of its own
      HttpResponse<String> answer = send(i, "smart");
      assertThat(answer.statusCode()).as("%s %s", answer.headers().map(), answer.body()).isEqualTo(200);
    }
    assertThat(primaryCalls()).isEqualTo(5);
    for (int i = 0; i < 3; i++) {
      assertThat(replicas.get(i).chain().breakers().gate(primary()).state()).isEqualTo(CircuitState.OPEN);
      JsonNode health = Json.MAPPER.readTree(get(i, "/health").body());
      assertThat(health.at("/targets/emu~1emu-529/circuit").asText()).as("/health shows the cluster's circuit")
          .isEqualTo("OPEN");
    }
    for (int i = 0; i < 12; i++) { // open everywhere: answered by the fallback, the primary left alone
      assertThat(send(i, "smart").statusCode()).isEqualTo(200);
    }
    assertThat(primaryCalls()).isEqualTo(5);

    // the open period ends: 100 concurrent requests across the three replicas, one trial in total
    assertThat(RedisFixture.eventually(Duration.ofSeconds(20),
        () -> replicas.stream().allMatch(g -> g.chain().breakers().gate(primary()).state() == CircuitState.HALF_OPEN)))
        .isTrue();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<HttpResponse<String>>> burst = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        int n = i;
        burst.add(pool.submit((Callable<HttpResponse<String>>) () -> send(n, "smart")));
      }
      for (Future<HttpResponse<String>> f : burst) {
        assertThat(f.get().statusCode()).isEqualTo(200);
      }
    }
    assertThat(primaryCalls()).isEqualTo(6); // the one trial failed (529) and reopened the circuit for all
  }

  @Test
  void threeReplicasTogetherSpendOneRetryBudget() throws Exception {
    start("""
        models:
          down: { chain: [emu/emu-529] }
        policy:
          retry: { max-retries: 5, base-delay: 1ms, max-delay: 5ms }
          breaker: off
          retry-budget: { max: 20, ratio: 0 }
        """);

    int requests = 30; // each would retry 5 times: 150 retries wanted, three local budgets would allow 60
    for (int i = 0; i < requests; i++) {
      assertThat(send(i, "down").statusCode()).isEqualTo(529);
    }

    int retries = primaryCalls() - requests;
    assertThat(retries).isLessThanOrEqualTo(20);
    assertThat(retries).isGreaterThanOrEqualTo(19); // the budget was spent, not bypassed (one timed-out token at most)
  }

  @Test
  void aTierForcedOnOneReplicasAdminApiIsPushedToAllThreeAndServed() throws Exception {
    // the replicas' clocks are frozen, so a local copy of the shared tier never expires by itself:
    // only the push (pub/sub) can bring the force to the other two. Issue 14 asked for 100 ms; that
    // time is measured, not asserted, by dev.levee.bench.ClusterCost ("tier forced"): asserted here
    // on the wall clock, a loaded box (two shared cores, a full test run) could miss it
    cluster = redis.start(3, """
        models:
          smart: { chain: [emu/emu-ok] }
        features:
          chat: { priority: standard }
        admin: { token: admin-secret }
        """, new ManualClock(), 14, null);
    replicas = cluster.gateways;
    assertThat(send(0, "smart").statusCode()).isEqualTo(200);
    for (Gateway replica : replicas) {
      assertThat(replica.tiers().tier("chat")).as("each replica now holds a copy that never expires").isEqualTo(Tier.T0);
    }

    HttpResponse<String> forced = cluster.send(HttpRequest.newBuilder(
            URI.create(replicas.get(0).baseUrl() + "/admin/tiers/chat"))
        .header("authorization", "Bearer admin-secret")
        .POST(HttpRequest.BodyPublishers.ofString("{\"tier\":\"T2\",\"for\":\"10m\"}")).build());
    assertThat(forced.statusCode()).isEqualTo(200);

    assertThat(RedisFixture.eventually(Duration.ofSeconds(20),
        () -> replicas.stream().allMatch(g -> g.tiers().tier("chat") == Tier.T2))).as("pushed to every replica").isTrue();
    for (int i = 1; i < 3; i++) { // a real request on the other replicas is served in T2
      HttpResponse<String> answer = send(i, "smart", Map.of("x-levee-feature", "chat"));
      assertThat(answer.headers().firstValue("x-levee-tier")).hasValue("T2");
    }
    JsonNode health = Json.MAPPER.readTree(get(2, "/health").body());
    assertThat(health.path("cluster").path("mode").asText()).isEqualTo("SHARED");
    assertThat(get(2, "/metrics").body()).contains("levee_cluster_shared");
  }

  @Test
  void withTheSharedCacheAnAnswerStoredOnOneReplicaServesT2OnAnother() throws Exception {
    start("""
        models:
          smart: { chain: [emu/emu-ok] }
        features:
          chat: { priority: standard }
        cache: { store: redis }
        """);
    assertThat(send(0, "smart", Map.of("x-levee-feature", "chat")).statusCode()).isEqualTo(200); // stored on replica 0
    replicas.get(0).tiers().force("chat", Tier.T2, Duration.ofMinutes(10));

    HttpResponse<String> fromCache = null;
    for (int attempt = 0; attempt < 200 && fromCache == null; attempt++) { // the write-behind lands within ms
      HttpResponse<String> answer = send(0, "smart", Map.of("x-levee-feature", "chat"), replicas.get(1));
      if (answer.headers().firstValue("x-levee-cache").orElse("").equals("hit")) {
        fromCache = answer;
      }
    }

    assertThat(fromCache).as("replica 1 served replica 0's answer from the shared cache").isNotNull();
    assertThat(fromCache.headers().firstValue("x-levee-tier")).hasValue("T2");
  }

  // ---- harness ----

  private void start(String yaml) throws Exception {
    cluster = redis.start(3, yaml);
    replicas = cluster.gateways;
  }

  private static Target primary() {
    return new Target("emu", PRIMARY);
  }

  private int primaryCalls() {
    return (int) cluster.emulator.log().stream().filter(e -> PRIMARY.equals(e.model())).count();
  }

  private HttpResponse<String> send(int n, String model) throws Exception {
    return send(n, model, Map.of());
  }

  /** A Messages request to replica {@code n % 3} (round robin). */
  private HttpResponse<String> send(int n, String model, Map<String, String> headers) throws Exception {
    return cluster.send(n, model, headers);
  }

  /** Request {@code n} (its prompt) to {@code replica}. */
  private HttpResponse<String> send(int n, String model, Map<String, String> headers, Gateway replica)
      throws Exception {
    return cluster.send(replica, n, model, headers);
  }

  private HttpResponse<String> get(int n, String path) throws Exception {
    return cluster.get(cluster.get(n), path);
  }
}
