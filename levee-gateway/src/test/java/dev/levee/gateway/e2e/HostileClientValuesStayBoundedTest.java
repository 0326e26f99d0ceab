package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Breakers;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.tier.TestBoards;
import dev.levee.gateway.tier.TierBoard;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * One long-lived gateway, many clients that never send the same value twice: every request has a
 * new API key (in {@code x-api-key} or {@code authorization}), {@code x-levee-tenant}, {@code
 * x-levee-feature} (most of them configured nowhere), {@code anthropic-beta}, {@code
 * idempotency-key}, {@code metadata.user_id} and query string; three in four a new model name no
 * alias names; some a path naming a batch, job or model that does not exist, or a model name the
 * gateway refuses. The gateway's per-key state must not grow with those values (DESIGN.md, "Where
 * state lives": a table a client can grow is bounded): after a warm-up that sent one request of each
 * shape, 1,400 more add no Levee meter to the registry and no series to {@code /metrics}, put none
 * of their values in a label, keep the breaker table within {@link Breakers#MAX_TARGETS} of
 * client-named targets (past which it evicts), and keep the tier board's scopes and call windows
 * within theirs ({@link TierBoard#MAX_CLIENT_SCOPES}; an unknown feature is {@code default}'s).
 *
 * <p>Every client-chosen value carries the marker {@value #MARK}, so a value that leaked into a
 * label is found by name. The upstream is the emulator, answering at once; traffic stays on
 * loopback.
 */
class HostileClientValuesStayBoundedTest {

  private static final String CONFIG = """
      models:
        smart: { chain: [emu/emu-ok] }
      features:
        chat: {}
      """;

  /** In every client-chosen value, and in nothing the gateway names itself. */
  private static final String MARK = "zq";

  /** The shapes below repeat every this many requests (8 × 3 × 5). */
  private static final int CYCLE = 120;

  private static final int CLIENTS = 4;

  /** Requests per phase: three in four name a new model, so two phases pass {@link Breakers#MAX_TARGETS}. */
  private static final int PHASE = 700;

  @Test
  void distinctValuesFromClientsAddNoMeterAndKeepTheTablesBounded() throws Exception {
    EmulatorOptions instant = EmulatorOptions.builder().timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO)
        .build();
    try (Harness h = Harness.start(instant, CONFIG);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      for (int i = 0; i < CYCLE; i++) { // every shape once, so each meter a shape needs exists
        send(h, http, i);
      }
      int meters = meters(h);
      int series = series(h);

      sendConcurrently(h, http, CYCLE);
      assertThat(meters(h)).as("Levee meters after %d more requests, every value new", PHASE).isEqualTo(meters);
      sendConcurrently(h, http, CYCLE + PHASE);
      assertThat(meters(h)).as("Levee meters after %d more requests, every value new", 2 * PHASE).isEqualTo(meters);

      String metrics = h.get("/metrics").body();
      assertThat(series(metrics)).as("series on /metrics").isEqualTo(series);
      assertThat(metrics).as("no client-chosen value is a label").doesNotContain(MARK);
      int targets = 1; // emu/emu-ok
      assertThat(h.gateway.chain().breakers().circuits().size()).as("breakers: the configured target's and the bound")
          .isLessThanOrEqualTo(targets + Breakers.MAX_TARGETS);
      assertThat(evictions(metrics)).as("the breaker table reached its bound and evicted").isPositive();
      int features = 2; // chat and default: any other name is default's
      int aliases = 1; // smart
      assertThat(TestBoards.scopes(h.gateway.tiers())).as("tier scopes: each feature's for smart and for other "
          + "names, and the bound on client-chosen names").isLessThanOrEqualTo(features * (aliases + 1)
          + TierBoard.MAX_CLIENT_SCOPES);
      int upstreams = 1; // emu, whose other names share emu/* past the bound
      assertThat(TestBoards.windows(h.gateway.tiers())).as("tier call windows")
          .isLessThanOrEqualTo(targets + TestBoards.MAX_OTHER_WINDOWS + upstreams);
    }
  }

  private static void sendConcurrently(Harness h, HttpClient http, int from) throws Exception {
    List<Future<?>> runs = new ArrayList<>();
    try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int c = 0; c < CLIENTS; c++) {
        int client = c;
        runs.add(clients.submit(() -> {
          for (int i = from + client; i < from + PHASE; i += CLIENTS) {
            send(h, http, i);
          }
          return null;
        }));
      }
      for (Future<?> run : runs) {
        run.get();
      }
    }
  }

  /**
   * Request {@code i}: its shape from {@code i % CYCLE} (model configured or new, JSON or stream,
   * feature configured or not, key header, a path or refusal besides), every value new.
   */
  private static void send(Harness h, HttpClient http, int i) throws Exception {
    String n = MARK + i;
    String model = i % 4 == 0 ? "smart" : "invented-" + n;
    boolean stream = i / 4 % 2 == 1;
    String body = "{\"model\":\"" + model + "\",\"max_tokens\":16,\"stream\":" + stream + ",\"metadata\":{\"user_id\":\"user-"
        + n + "\"},\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages?beta=true&n=" + n))
        .header("content-type", "application/json").header(Harness.VERSION, Harness.DEFAULT_VERSION)
        .header("x-levee-tenant", "tenant-" + n).header("x-levee-feature", i % 3 == 0 ? "chat" : "feature-" + n)
        .header("anthropic-beta", "beta-" + n).header("idempotency-key", "idem-" + n)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    request.header(i % 5 == 0 ? "authorization" : "x-api-key", (i % 5 == 0 ? "Bearer tok-" : "sk-") + n);
    HttpResponse<Void> answer = http.send(request.build(), HttpResponse.BodyHandlers.discarding());
    assertThat(answer.statusCode()).as("request %d", i).isEqualTo(200);
    switch (i % 20) {
      case 1 -> get(h, http, "/v1/messages/batches/msgbatch_" + n, n);
      case 5 -> get(h, http, "/v1/levee/jobs/job_" + n, n);
      case 9 -> get(h, http, "/v1/models/model-" + n, n);
      case 13 -> { // refused at the door: a model name with a space
        HttpResponse<Void> refused = http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages"))
            .header("content-type", "application/json").header(Harness.VERSION, Harness.DEFAULT_VERSION)
            .header("x-api-key", "sk-" + n).POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"bad " + n
                + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}")).build(),
            HttpResponse.BodyHandlers.discarding());
        assertThat(refused.statusCode()).as("refused %d", i).isEqualTo(400);
      }
      default -> { }
    }
  }

  private static void get(Harness h, HttpClient http, String path, String n) throws Exception {
    http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path)).header("x-api-key", "sk-" + n)
        .header(Harness.VERSION, Harness.DEFAULT_VERSION).GET().build(), HttpResponse.BodyHandlers.discarding());
  }

  /** Levee's own meters (the JVM's, such as a GC cause seen for the first time, may come at any time). */
  private static int meters(Harness h) {
    return (int) h.gateway.metrics().registry().getMeters().stream()
        .filter(m -> m.getId().getName().startsWith("levee")).count();
  }

  private static int series(Harness h) throws Exception {
    return series(h.get("/metrics").body());
  }

  /** The samples of Levee's own metrics in a scrape. */
  private static int series(String metrics) {
    return (int) metrics.lines().filter(line -> line.startsWith("levee_")).count();
  }

  private static double evictions(String metrics) {
    Matcher m = Pattern.compile("levee_state_evictions_total\\{table=\"breakers\"} (\\S+)").matcher(metrics);
    assertThat(m.find()).as(metrics).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
