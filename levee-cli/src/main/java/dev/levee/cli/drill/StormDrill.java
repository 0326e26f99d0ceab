package dev.levee.cli.drill;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Runs one {@link DrillPlan} against a {@link Pair}: schedules the storm on the emulator ({@code
 * POST /_emulator/scenario}, which also makes its time zero the drill's), then, every drill
 * second, reads {@code /health} and asks the second's questions; every 250 ms of drill time it
 * lets time move. It ends once the tier has held T0 for {@code settle} after the storm, or at the
 * recovery bound; then it reads the emulator's attempt log for the upstream calls.
 */
final class StormDrill {

  private static final long STEP_MS = 250;

  private final DrillPlan plan;
  private final Pair pair;
  private final Progress progress;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final List<Answer> answers = Collections.synchronizedList(new ArrayList<>());
  private final List<Sample> samples = new ArrayList<>();
  private int asked;

  StormDrill(DrillPlan plan, Pair pair, Progress progress) {
    this.plan = plan;
    this.pair = pair;
    this.progress = progress;
  }

  /**
   * @throws IOException when the gateway or the emulator cannot be reached or refuses the storm
   */
  DrillOutcome run() throws IOException, InterruptedException {
    scheduleStorm();
    DrillClock clock = pair.clock();
    clock.start();
    long nextSecond = 0;
    long t0Since = -1;
    while (true) {
      long now = clock.nowMs();
      if (now >= nextSecond) {
        int second = (int) (nextSecond / 1000);
        Sample sample = health(second);
        samples.add(sample);
        t0Since = sample.tier() == 0 ? (t0Since < 0 ? nextSecond : t0Since) : -1;
        for (int i = 0; i < plan.rate(); i++) {
          ask(second, asked++ % plan.mix());
        }
        progress.second(plan, sample, answers);
        nextSecond += 1000;
        if (over(nextSecond, t0Since)) {
          break;
        }
      }
      clock.waitUntil(Math.min(now + STEP_MS, nextSecond));
    }
    pair.awaitRequests(plan.deadlineAllowance());
    progress.done();
    List<Answer> asked = List.copyOf(answers);
    return new DrillOutcome(plan, List.copyOf(samples), asked, UpstreamCalls.read(http, pair, samples.size()),
        (samples.size() - 1) * 1000L);
  }

  private boolean over(long nextSecond, long t0Since) {
    boolean settled = t0Since >= 0 && nextSecond > plan.stormEndMs() && nextSecond - Math.max(t0Since, plan.stormEndMs())
        > plan.settle().toMillis();
    return settled || nextSecond > plan.lastMs();
  }

  private void scheduleStorm() throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(pair.emulator().resolve("/_emulator/scenario"))
        .timeout(Duration.ofSeconds(10)).header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(plan.scenario(pair.clock().emulatorScale()))).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("the emulator at " + pair.emulator() + " refused the storm (HTTP " + response.statusCode()
          + "): " + response.body());
    }
  }

  private Sample health(int second) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(pair.gateway().resolve("/health"))
        .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    JsonNode body = Json.tryParse(response.body());
    int tier = -1;
    double budget = Double.NaN;
    if (body != null) {
      for (JsonNode feature : body.path("tiers")) {
        String name = feature.path("tier").asText("");
        if (feature.path("feature").asText().equals(plan.feature()) && name.matches("T[0-3]")) {
          tier = name.charAt(1) - '0';
        }
      }
      budget = budgetLeft(body);
    }
    return new Sample(second, tier, budget);
  }

  /**
   * The fewest tokens left in a configured target's own retry budget ({@code targets.*.retry_budget}
   * with {@code bucket: own}), NaN when none is reported: the embedded gateway has one target, the
   * alias's, so this is its bucket. Not the overflow bucket of models clients name: the drill asks
   * only for its alias.
   */
  static double budgetLeft(JsonNode health) {
    double least = Double.NaN;
    for (JsonNode target : health.path("targets")) {
      JsonNode budget = target.path("retry_budget");
      JsonNode tokens = budget.path("tokens");
      if ("own".equals(budget.path("bucket").asText()) && tokens.isNumber()
          && (Double.isNaN(least) || tokens.asDouble() < least)) {
        least = tokens.asDouble();
      }
    }
    return least;
  }

  private void ask(int second, int question) {
    String body = "{\"model\":" + Json.string(plan.alias()) + ",\"max_tokens\":256,\"messages\":[{\"role\":\"user\","
        + "\"content\":\"Drill question " + question + ": what keeps a river in its bed?\"}]}";
    HttpRequest.Builder request = HttpRequest.newBuilder(pair.gateway().resolve("/v1/messages"))
        .timeout(plan.deadlineAllowance()).header("content-type", "application/json")
        .header("anthropic-version", "2023-06-01").header("x-api-key", "levee-drill")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (!plan.feature().equals("default")) {
      request.header("x-levee-feature", plan.feature());
    }
    pair.requests().execute(() -> answers.add(send(second, request.build())));
  }

  private Answer send(int second, HttpRequest request) {
    try {
      HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
      return new Answer(second, response.statusCode(), response.headers().firstValue("x-levee-tier").orElse(null),
          response.headers().firstValue("x-levee-cache").orElse(null));
    } catch (IOException e) {
      return new Answer(second, 0, null, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer(second, 0, null, null);
    }
  }
}
