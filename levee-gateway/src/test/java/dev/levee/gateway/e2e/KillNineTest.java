package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.QueueConfig;
import dev.levee.gateway.jobs.TestStores;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * No accepted work is lost (promise 6): a real gateway process is killed with SIGKILL while a
 * batch of 200 is being worked on; a new process on the same embedded store finishes it. Every
 * request ends succeeded with exactly one result line, and the upstream saw a request twice only
 * if it was running at the kill.
 */
class KillNineTest {

  private static final int REQUESTS = 200;
  private static final int WORKERS = 8;
  private static final String MODEL = "emu-slow-ttft-100"; // each answer takes 100 ms: the kill lands mid-batch

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aBatchSurvivesKillNineAndEveryRequestEndsOnce(Database.Dialect dialect, @TempDir Path dir) throws Exception {
    QueueConfig store = TestStores.of(dialect);
    try (Emulator emulator = Emulator.start(EmulatorOptions.defaults());
         HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      Path config = dir.resolve("levee.yaml");
      // PostgreSQL: a dead gateway's claims come back when their lease runs out (2 s here, 60 s by default)
      String where = dialect == Database.Dialect.SQLITE ? "folder: \"" + store.folder() + "\""
          : "store: \"" + store.store() + "\", schema: " + store.schema() + ", lease: 2s";
      Files.writeString(config, """
          server: { port: 0 }
          upstreams: { emu: { url: "%s", api-key: upstream-key } }
          queue: { %s, workers: %d, poll: 50ms }
          """.formatted(emulator.baseUrl(), where, WORKERS));

      Process first = GatewayProcess.launch(config);
      String base = "http://127.0.0.1:" + GatewayProcess.port(first);
      StringBuilder batch = new StringBuilder("{\"requests\":[");
      for (int i = 0; i < REQUESTS; i++) {
        batch.append(i == 0 ? "" : ",").append("{\"custom_id\":\"r").append(i).append("\",\"params\":{\"model\":\"")
            .append(MODEL).append("\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"q").append(i)
            .append("\"}]}}");
      }
      HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/messages/batches"))
          .header("x-api-key", "sk-kill").header("content-type", "application/json").header("anthropic-version", "2023-06-01")
          .POST(HttpRequest.BodyPublishers.ofString(batch.append("]}").toString()))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).isEqualTo(200);
      String id = Json.tryParse(created.body()).get("id").asText();
      emulator.awaitLog(log -> log.size() >= REQUESTS / 4, Duration.ofSeconds(60));

      first.destroyForcibly(); // SIGKILL: no shutdown hook, no lease handed back
      assertThat(first.waitFor(10, TimeUnit.SECONDS)).isTrue();
      List<LogEntry> beforeKill = emulator.log();
      Set<String> answeredBeforeKill = beforeKill.stream().filter(LogEntry::finished).map(LogEntry::bodySha256)
          .collect(Collectors.toSet());

      Process second = GatewayProcess.launch(config);
      try {
        String base2 = "http://127.0.0.1:" + GatewayProcess.port(second);
        JsonNode status = awaitEnded(http, base2, id);
        assertThat(status.at("/request_counts/succeeded").asInt()).isEqualTo(REQUESTS);
        String results = http.send(HttpRequest.newBuilder(URI.create(base2 + "/v1/messages/batches/" + id + "/results"))
            .header("x-api-key", "sk-kill").header("anthropic-version", "2023-06-01").build(), HttpResponse.BodyHandlers.ofString()).body();
        List<JsonNode> lines = results.lines().map(Json::tryParse).toList();
        assertThat(lines).hasSize(REQUESTS);
        assertThat(lines.stream().map(l -> l.get("custom_id").asText()).collect(Collectors.toSet())).hasSize(REQUESTS);
        assertThat(lines).allSatisfy(l -> assertThat(l.at("/result/type").asText()).isEqualTo("succeeded"));

        Map<String, Long> calls = emulator.log().stream()
            .collect(Collectors.groupingBy(LogEntry::bodySha256, Collectors.counting()));
        Set<String> twice = calls.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
            .collect(Collectors.toCollection(HashSet::new));
        assertThat(calls).hasSize(REQUESTS); // every request reached the upstream
        assertThat(calls.values()).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(2));
        assertThat(twice.size()).as("only requests running at the kill run twice").isLessThanOrEqualTo(WORKERS);
        System.out.printf("kill -9 (%s): %d of %d requests answered before the kill, %d ran twice%n",
            dialect, answeredBeforeKill.size(), REQUESTS, twice.size());
      } finally {
        second.destroyForcibly();
        second.waitFor(10, TimeUnit.SECONDS);
      }
    } finally {
      TestStores.drop(store);
    }
  }


  private static JsonNode awaitEnded(HttpClient http, String base, String id) throws Exception {
    HttpRequest get = HttpRequest.newBuilder(URI.create(base + "/v1/messages/batches/" + id))
        .header("x-api-key", "sk-kill").header("anthropic-version", "2023-06-01").build();
    long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    JsonNode status;
    do {
      Thread.sleep(100); // polling a real process, as a client would
      status = Json.tryParse(http.send(get, HttpResponse.BodyHandlers.ofString()).body());
    } while (!status.get("processing_status").asText().equals("ended") && System.nanoTime() < until);
    assertThat(status.get("processing_status").asText()).isEqualTo("ended");
    return status;
  }
}
