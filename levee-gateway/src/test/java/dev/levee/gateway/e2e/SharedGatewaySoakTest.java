package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.tier.Tier;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One gateway, as in production: several aliases and tenants at once, JSON and streams mixed,
 * faults confined to some targets, on one long-lived process. Each alias gets what its own
 * targets allow and nothing worse — the healthy one never degrades, an absorbed fault is
 * absorbed, a recovered stream is whole, a dead alias fails in the API's shape — and when the
 * traffic stops, nothing is left behind: no request in flight, no extra platform thread, no
 * leaked socket (beyond the upstream connections kept alive for reuse).
 */
class SharedGatewaySoakTest {

  private static final String CONFIG = """
      models:
        healthy:
          chain: [emu/emu-ok]
        absorbed:
          chain: [emu/emu-529, emu/claude-haiku-4-5]
        recovered:
          chain: [emu/emu-cut-4, emu/claude-sonnet-4-5]
        dead:
          chain: [emu/emu-503]
      tiers:
        evaluate-every: 200ms
      """ + Harness.BASE_POLICY;

  private static final List<String> ALIASES = List.of("healthy", "absorbed", "recovered", "dead");
  private static final int CLIENTS = 16;
  private static final int REQUESTS_PER_CLIENT = 24;

  private record Answer(String alias, boolean stream, String prompt, HttpResponse<String> response) {}

  @Test
  void faultsStayWithTheirAliasesAndNothingLeaksOnceTheTrafficStops() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      List<HttpClient> tenants = Stream.generate(() -> HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .build()).limit(4).toList();
      for (String alias : ALIASES) { // every lazily made thread and pool exists before the baseline
        ask(h, tenants.getFirst(), 0, alias, false, "warm-up " + alias);
        ask(h, tenants.getFirst(), 0, alias, true, "warm-up stream " + alias);
      }
      int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
      long fdsBefore = openFiles();

      List<Answer> answers = new ArrayList<>();
      try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
        List<Future<List<Answer>>> runs = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
          int client = c;
          runs.add(clients.submit(() -> {
            List<Answer> mine = new ArrayList<>();
            for (int i = 0; i < REQUESTS_PER_CLIENT; i++) {
              String alias = ALIASES.get((client + i) % ALIASES.size());
              boolean stream = (i / ALIASES.size()) % 2 == 1;
              String prompt = "client " + client + " request " + i;
              mine.add(new Answer(alias, stream, prompt,
                  ask(h, tenants.get(client % tenants.size()), client, alias, stream, prompt)));
            }
            return mine;
          }));
        }
        for (Future<List<Answer>> run : runs) {
          answers.addAll(run.get());
        }
      }
      tenants.forEach(HttpClient::close);

      Map<String, String> expected = expectedTexts(h, answers);
      for (Answer a : answers) {
        HttpResponse<String> r = a.response();
        switch (a.alias()) {
          case "healthy" -> {
            assertThat(r.statusCode()).as("healthy %s", a.prompt()).isEqualTo(200);
            assertThat(r.headers().firstValue("x-levee-tier")).as("healthy never degrades").contains("T0");
            assertThat(r.headers().firstValue("x-levee-attempts")).as("healthy: one call").contains("1");
            assertWhole(a, expected);
          }
          case "absorbed", "recovered" -> {
            assertThat(r.statusCode()).as("%s %s", a.alias(), a.prompt()).isEqualTo(200);
            assertWhole(a, expected);
          }
          case "dead" -> {
            assertThat(r.statusCode()).as("dead %s", a.prompt()).isBetween(500, 599);
            JsonNode error = Json.tryParse(r.body());
            assertThat(error.path("type").asText()).as(r.body()).isEqualTo("error");
            assertThat(error.path("request_id").asText()).startsWith("lv_");
          }
          default -> throw new AssertionError(a.alias());
        }
      }
      h.gateway.tiers().evaluateAll();
      assertThat(h.gateway.tiers().currentTier("default", "healthy")).isEqualTo(Tier.T0);
      String metrics = h.awaitMetrics("levee_requests_in_flight 0.0");
      assertThat(metrics).as("no request left in flight").contains("levee_requests_in_flight 0.0");
      assertThat(new Scrape(metrics).value("levee_circuit_state", Map.of("target", "emu/emu-ok")))
          .as("the healthy target's circuit").isZero();
      // every platform thread of the process, the in-process emulator's pool included, which may
      // keep a few more after a busy run: a thread per request (or per stream) would be hundreds
      assertThat(ManagementFactory.getThreadMXBean().getThreadCount()).as("platform threads after the run")
          .isLessThanOrEqualTo(threadsBefore + CLIENTS);
      assertThat(openFiles()).as("open files after the run: kept-alive upstream connections at most")
          .isLessThanOrEqualTo(fdsBefore + CLIENTS * 2L);
    }
  }

  /** The answer is the emulator's whole text: a JSON message, or a stream that ended with {@code message_stop}. */
  private static void assertWhole(Answer a, Map<String, String> expected) {
    String body = a.response().body();
    String text;
    if (a.stream()) {
      assertThat(body).as("%s stream %s", a.alias(), a.prompt()).contains("event: message_stop")
          .doesNotContain("event: error");
      StringBuilder deltas = new StringBuilder();
      for (String line : body.split("\n")) {
        if (line.startsWith("data: ") && line.contains("\"text_delta\"")) {
          deltas.append(Json.tryParse(line.substring(6)).path("delta").path("text").asText());
        }
      }
      text = deltas.toString();
    } else {
      text = textOf(body);
    }
    assertThat(text).as("%s %s: the whole answer, once", a.alias(), a.prompt()).isEqualTo(expected.get(a.prompt()));
  }

  /** The emulator's answer to each prompt, asked directly (it does not depend on the model), in parallel. */
  private static Map<String, String> expectedTexts(Harness h, List<Answer> answers) throws Exception {
    Map<String, String> expected = new ConcurrentHashMap<>();
    try (HttpClient direct = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
         ExecutorService asks = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> done = new ArrayList<>();
      answers.stream().filter(a -> !a.alias().equals("dead")).map(Answer::prompt).distinct().forEach(prompt ->
          done.add(asks.submit(() -> {
            HttpRequest ask = HttpRequest.newBuilder(URI.create(h.emulator.baseUrl() + "/v1/messages"))
                .header("content-type", "application/json").header("x-api-key", "k")
                .POST(HttpRequest.BodyPublishers.ofString(body("emu-ok", false, prompt))).build();
            expected.put(prompt, textOf(direct.send(ask, HttpResponse.BodyHandlers.ofString()).body()));
            return null;
          })));
      for (Future<?> f : done) {
        f.get();
      }
    }
    return expected;
  }

  private static String textOf(String message) {
    return Json.tryParse(message).path("content").get(0).path("text").asText();
  }

  private static String body(String model, boolean stream, String prompt) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":64" + (stream ? ",\"stream\":true" : "")
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
  }

  private static HttpResponse<String> ask(Harness h, HttpClient tenant, int client, String alias, boolean stream,
      String prompt) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages"))
        .timeout(Duration.ofSeconds(30))
        .header("content-type", "application/json").header("anthropic-version", "2023-06-01")
        .header("x-api-key", "sk-tenant-" + (client % 4))
        .POST(HttpRequest.BodyPublishers.ofString(body(alias, stream, prompt))).build();
    return tenant.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static long openFiles() throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }
}
