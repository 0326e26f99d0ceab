package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * One gateway shared by several aliases and tenants, as in production, taken through a sequence of
 * faults confined to some aliases' targets: a 429 with a retry-after longer than the deadline, an
 * overloaded (529) target whose circuit opens, a model no alias names that the upstream does not
 * know, batches sent with and without a key, token counts sent with {@code "stream": true}, a
 * connection reset after a request, stream clients of another alias that stop reading, and another
 * feature forced to T1 on an alias whose reduced target cannot answer.
 * Between and after each step the healthy alias
 * still answers at once, from its one target, with no retry, fallback or reduced tier; its target
 * reads {@code healthy} with a CLOSED circuit in {@code /health}, no other configured target reads
 * worse than {@code healthy} unless it is one of the faulted ones, and {@code /health}'s overall
 * status is the one docs/gateway.md ("Health") derives from the configured targets' circuits and
 * windows — never {@code unhealthy} while the healthy alias's circuit is CLOSED, and never moved by
 * a model name a client invented.
 *
 * <p>Virtual time: the emulator and the gateway share one {@link ManualClock}; only the gateway's
 * own backoff sleeps move it (a few tens of ms per 529 retry), so the 30 s retry-after is never sat
 * out and the 529 target's 30 s open period does not run out within the test. The send deadline
 * ({@code server.send-timeout}, here 2 s) is the server's, as Jetty's own timers are, and runs on the
 * real clock whatever the gateway's clock: it is what cuts the stalled stream clients, and since
 * virtual time stands still while they are held (the step asserts it), nothing else can — not the
 * stream watchdogs, the attempt timeout or the deadline, which all run on virtual time. Their
 * upstream is an {@link EndlessUpstream}, whose answer without end fills the socket buffers between
 * the gateway and a client that does not read in well under a second (the emulator's stalled
 * streams, whose {@code ping}s are a few dozen bytes each, take some ten seconds per client on a
 * loaded box).
 */
class SharedGatewayFaultSequenceTest {

  private static final String HEALTHY_TARGET = "emu/emu-ok";
  private static final String LIMITED_TARGET = "emu/emu-429-ra30";
  private static final String OVERLOADED_TARGET = "emu/emu-529";
  private static final String RESETTING_TARGET = "emu/emu-reset";
  private static final String ENDLESS_TARGET = "endless/endless-model";

  /**
   * Stalled stream clients held at once: as many as the default breaker's failures to open (5 in
   * 30 s), so that were their cuts counted as the upstream's failures, its circuit would open.
   */
  private static final int STALLED = 5;

  /** Far below the 300 s idle timeout that ended such a stream before; far above the 2 s send timeout plus two sweeps. */
  private static final Duration CUT_WITHIN = Duration.ofSeconds(20);

  /** The targets this test makes fail: only these may read worse than {@code healthy} in {@code /health}. */
  private static final Set<String> FAULTED = Set.of(LIMITED_TARGET, OVERLOADED_TARGET, RESETTING_TARGET);

  private static final String SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

  /**
   * The Harness opens {@code upstreams:} with {@code emu}, which holds no API key of its own; the
   * test puts {@code endless} (an {@link EndlessUpstream}) after it.
   */
  private static final String CONFIG = """
      models:
        healthy: { chain: [emu/emu-ok] }
        limited: { chain: [emu/emu-429-ra30] }
        overloaded: { chain: [emu/emu-529] }
        resetting: { chain: [emu/emu-reset] }
        endless: { chain: [endless/endless-model] }
        pair: { chain: [emu/emu-ok, emu/emu-529] }
      features:
        drill: {}
      policy:
        deadline: 12s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms, max-retry-after: 60s }
        breaker: default
        retry-budget: { max: 100, ratio: 0.5 }
      queue:
        folder: ${QUEUE}
        secret: %s
      """.formatted(SECRET);

  private ManualClock clock;
  private Harness h;
  private EndlessUpstream endless;
  private int asked;

  @Test
  void faultsOnSomeAliasesLeaveTheHealthyAliasAndTheGatewaysHealthAlone() throws Exception {
    clock = new ManualClock();
    // faithful: the emulator answers 404 for a model it does not know, as the API does
    try (EndlessUpstream upstream = new EndlessUpstream();
        Harness harness = Harness.start(VirtualTime.emulator(clock).faithful(true).build(),
            upstream.upstream("endless") + CONFIG, "send-timeout: 2s", VirtualTime.gateway(clock, 11))) {
      h = harness;
      endless = upstream;

      // 1. baseline
      healthyAliasUnaffected("baseline");

      // 2. a 429 whose retry-after (30 s) does not fit in the deadline (12 s): not waited for, and said so
      HttpResponse<String> limited = ask("limited", "sk-tenant-b");
      assertThat(limited.statusCode()).as(limited.body()).isEqualTo(429);
      assertThat(limited.headers().firstValue("x-levee-attempts")).hasValue("1");
      assertThat(limited.headers().firstValue("x-levee-reason")).hasValueSatisfying(reason -> assertThat(reason)
          .startsWith(LIMITED_TARGET + ": 429 rate_limit_error (1 call, then not retried: retry-after 30 s ")
          .matches(".*does not fit in the \\d+ s left of the deadline\\)"));
      healthyAliasUnaffected("after the 429 with a long retry-after");

      // 3. an overloaded target, asked until its circuit opens
      List<HttpResponse<String>> overloaded = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        overloaded.add(ask("overloaded", "sk-tenant-c"));
      }
      for (HttpResponse<String> r : overloaded) {
        assertThat(r.statusCode()).as(r.body()).isBetween(500, 599);
        assertThat(Json.tryParse(r.body()).path("type").asText()).isEqualTo("error");
        assertThat(r.headers().firstValue("x-levee-reason")).hasValueSatisfying(reason ->
            assertThat(reason).startsWith(OVERLOADED_TARGET + ": "));
      }
      assertThat(target(health(), OVERLOADED_TARGET).path("circuit").asText())
          .as("5 failures in 30 s (breaker: default) opened it").isEqualTo("OPEN");
      healthyAliasUnaffected("after the 529s opened " + OVERLOADED_TARGET + "'s circuit");

      // 4. a model no alias names, which the upstream does not know
      HttpResponse<String> unknown = ask("no-such-model", "sk-tenant-d");
      assertThat(unknown.statusCode()).as(unknown.body()).isEqualTo(404);
      assertThat(Json.tryParse(unknown.body()).path("error").path("type").asText()).isEqualTo("not_found_error");
      JsonNode targets = health().path("targets");
      assertThat(targets.has("emu/no-such-model")).as("a name only a 404 answered is not listed: %s", targets)
          .isFalse();
      assertThat(targets.path("emu/no-such-model").path("health").asText()).isNotEqualTo("healthy");
      healthyAliasUnaffected("after a 404 for an unknown model");

      // 5. batches for the healthy alias, whose upstream holds no key: refused without one, taken with one
      HttpResponse<String> keyless = createBatch(Map.of());
      assertThat(keyless.statusCode()).as(keyless.body()).isEqualTo(401);
      assertThat(Json.tryParse(keyless.body()).path("error").path("type").asText()).isEqualTo("authentication_error");
      assertThat(h.get("/v1/messages/batches").body()).as("nothing stored").contains("\"data\":[]");
      healthyAliasUnaffected("after a batch without a key");

      HttpResponse<String> keyed = createBatch(Map.of("x-api-key", "sk-tenant-e"));
      assertThat(keyed.statusCode()).as(keyed.body()).isEqualTo(200);
      assertThat(keyed.headers().firstValue("request-id")).as("where the SDKs read an answer's id")
          .hasValueSatisfying(id -> assertThat(id).isNotBlank());
      String id = Json.tryParse(keyed.body()).path("id").asText();
      assertThat(h.getWith("/v1/messages/batches", "sk-tenant-e").body()).contains(id);
      healthyAliasUnaffected("after a batch with a key");

      // 6. token counts of the healthy alias sent with "stream": true (a client spreading its message
      // parameters): sent once each as a JSON call, whose 400 (the API refuses the field) no breaker
      // counts (CountTokensNeverStreamsRegressionTest: an upstream that answers them instead)
      for (int i = 0; i < 6; i++) {
        HttpResponse<String> count = h.post("/v1/messages/count_tokens", "{\"model\":\"healthy\",\"stream\":true,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"count " + i + "\"}]}", Map.of("x-api-key", "sk-tenant-f"));
        assertThat(count.statusCode()).as(count.body()).isEqualTo(400);
        assertThat(Json.tryParse(count.body()).path("error").path("type").asText()).isEqualTo("invalid_request_error");
      }
      healthyAliasUnaffected("after token counts sent with stream: true");

      // 7. a reset after the request on a kept-alive connection: an attempt the client is told of,
      // retried, not a second call hidden inside the upstream client
      HttpResponse<String> reset = ask("resetting", "sk-tenant-g");
      assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
      assertThat(reset.headers().firstValue("x-levee-attempts")).hasValue("2");
      healthyAliasUnaffected("after a connection reset on another alias");

      // 8. stream clients of another alias that read their stream's first delta and then nothing more
      stalledClientsCutAlone();

      // 9. another feature forced to T1 on an alias whose reduced target (the 529 one, its circuit
      // open since step 3) cannot answer: its other target answers, and the default feature stays T0
      h.gateway.tiers().controller("drill").force(Tier.T1, Duration.ofMinutes(5));
      HttpResponse<String> reduced = h.post("/v1/messages", "{\"model\":\"pair\",\"max_tokens\":16,\"messages\":"
          + "[{\"role\":\"user\",\"content\":\"request " + (asked++) + "\"}]}",
          Map.of("x-api-key", "sk-tenant-h", "x-levee-feature", "drill"));
      assertThat(reduced.statusCode()).as(reduced.body()).isEqualTo(200);
      assertThat(reduced.headers().firstValue("x-levee-tier")).hasValue("T1");
      assertThat(reduced.headers().firstValue("x-levee-model")).hasValue(HEALTHY_TARGET);
      healthyAliasUnaffected("after another feature's reduced tier fell back");
    }
  }

  /**
   * Step 8: {@link #STALLED} clients of {@code endless} (another tenant) each read their endless
   * stream up to its first content delta and then read nothing more. While they are held, the
   * healthy alias answers, JSON and streamed, and {@code /health} answers — before any of them is
   * cut, so nothing waited for the cut. Then {@code server.send-timeout} cuts each: the gateway hangs
   * up on its upstream call, its access line says {@code stream_send_timeout}, its stream never ends
   * as if finished. Virtual time did not move meanwhile: nothing but the send deadline ended them. A
   * cut is the client's doing, not the upstream's: {@code endless}'s target reads no failure and a
   * CLOSED circuit, and a fresh client of {@code endless} is served at once, by that target.
   */
  private void stalledClientsCutAlone() throws Exception {
    long virtualBefore = clock.nanos();
    List<StallingClient> stalled = new ArrayList<>();
    try (AccessLines access = new AccessLines()) {
      for (int i = 0; i < STALLED; i++) {
        stalled.add(StallingClient.open(h, "endless", "sk-tenant-i", EndlessUpstream.ENDLESS + " " + i));
      }
      long stoppedReading = System.nanoTime(); // none of them reads again until the end

      healthyAliasUnaffected("while " + STALLED + " stream clients of another alias read nothing");
      healthyAliasStreams("while " + STALLED + " stream clients of another alias read nothing");
      assertThat(endless.calls(EndlessUpstream.ENDLESS)).as("all held while the healthy alias answered: it did "
          + "not wait for their cut").hasSize(STALLED).allSatisfy(call -> assertThat(call.end()).as("%s", call).isNull());

      List<EndlessUpstream.Call> calls = awaitStalledCallsEnded();
      Duration held = Duration.ofNanos(System.nanoTime() - stoppedReading);
      assertThat(calls).as("upstream calls still open %s after their clients stopped reading", held)
          .hasSize(STALLED).allSatisfy(call -> assertThat(call.end()).as("%s", call).isEqualTo("hung up"));
      List<String> ids = stalled.stream().map(StallingClient::requestId).toList();
      List<String> lines = access.await(ids);
      for (String id : ids) {
        assertThat(lines).as("the access line of %s", id).filteredOn(line -> line.contains(" - " + id + " "))
            .singleElement().asString().contains("model=endless").contains("status=200")
            .contains("outcome=stream_send_timeout");
      }
      for (StallingClient client : stalled) {
        assertThat(client.drain()).as("closed, never ended as if finished").doesNotContain("message_stop")
            .doesNotEndWith("0\r\n\r\n");
      }
    } finally {
      for (StallingClient client : stalled) {
        client.close();
      }
    }
    assertThat(Duration.ofNanos(clock.nanos() - virtualBefore)).as("virtual time stood still: only the send "
        + "deadline, on the real clock, could have cut them").isLessThan(Duration.ofSeconds(1));

    JsonNode target = target(health(), ENDLESS_TARGET);
    assertThat(target.path("circuit").asText()).as("a client that stopped reading is no upstream failure: %s",
        target).isEqualTo("CLOSED");
    assertThat(target.path("failed").asLong()).as("%s", target).isZero();
    healthyAliasUnaffected("after " + STALLED + " stalled stream clients of another alias were cut");

    HttpResponse<String> fresh = h.post("/v1/messages", "{\"model\":\"endless\",\"stream\":true,\"max_tokens\":64,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"a fresh client\"}]}", Map.of("x-api-key", "sk-tenant-i"));
    assertThat(fresh.statusCode()).as(fresh.body()).isEqualTo(200);
    assertThat(fresh.headers().firstValue("x-levee-attempts")).as("one call").hasValue("1");
    assertThat(fresh.headers().firstValue("x-levee-model")).hasValue(ENDLESS_TARGET);
    assertThat(fresh.headers().firstValue("x-levee-tier").orElse("T0")).isEqualTo("T0");
    assertThat(fresh.headers().firstValue("x-levee-reason")).as("nothing to explain").isEmpty();
    assertThat(fresh.body()).as("a whole stream").contains("Fine.").contains("event: message_stop");
  }

  /** The stalled clients' upstream calls once all have ended, or as they are after {@link #CUT_WITHIN}. */
  private List<EndlessUpstream.Call> awaitStalledCallsEnded() {
    long until = System.nanoTime() + CUT_WITHIN.toNanos();
    List<EndlessUpstream.Call> calls = endless.calls(EndlessUpstream.ENDLESS);
    while (!(calls.size() == STALLED && calls.stream().allMatch(call -> call.end() != null))
        && System.nanoTime() < until) {
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
      calls = endless.calls(EndlessUpstream.ENDLESS);
    }
    return calls;
  }

  /** The healthy alias streams a whole answer from its one target, with nothing to explain. */
  private void healthyAliasStreams(String step) throws Exception {
    HttpResponse<String> r = h.post("/v1/messages", "{\"model\":\"healthy\",\"stream\":true,\"max_tokens\":16,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"request " + (asked++) + "\"}]}",
        Map.of("x-api-key", "sk-tenant-a"));
    assertThat(r.statusCode()).as("%s: %s", step, r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-levee-attempts")).as("%s: one call", step).hasValue("1");
    assertThat(r.headers().firstValue("x-levee-model")).as(step).hasValue(HEALTHY_TARGET);
    assertThat(r.headers().firstValue("x-levee-reason")).as("%s: nothing to explain", step).isEmpty();
    assertThat(r.body()).as("%s: a whole stream", step).contains("event: message_stop");
  }

  /**
   * The healthy alias answers 200 from its one target at once (one call, no fallback, no reason,
   * T0, no virtual time spent waiting), and {@code /health} shows the faults stayed where they were.
   */
  private void healthyAliasUnaffected(String step) throws Exception {
    long before = clock.nanos();
    HttpResponse<String> r = ask("healthy", "sk-tenant-a");
    assertThat(Duration.ofNanos(clock.nanos() - before)).as("%s: answered at once", step)
        .isLessThan(Duration.ofSeconds(1));
    assertThat(r.statusCode()).as("%s: %s", step, r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-levee-attempts")).as("%s: one call", step).hasValue("1");
    assertThat(r.headers().firstValue("x-levee-fallback").orElse("false")).as("%s: no fallback", step)
        .isEqualTo("false");
    assertThat(r.headers().firstValue("x-levee-reason")).as("%s: nothing to explain", step).isEmpty();
    assertThat(r.headers().firstValue("x-levee-tier").orElse("T0")).as("%s: full service", step).isEqualTo("T0");
    assertThat(r.headers().firstValue("x-levee-degraded")).as("%s", step).isEmpty();

    HttpResponse<String> answer = h.get("/health");
    JsonNode health = Json.tryParse(answer.body());
    JsonNode healthy = target(health, HEALTHY_TARGET);
    assertThat(healthy.path("circuit").asText()).as("%s: %s", step, healthy).isEqualTo("CLOSED");
    assertThat(healthy.path("health").asText()).as("%s: %s", step, healthy).isEqualTo("healthy");
    assertThat(healthy.path("failed").asLong()).as("%s: %s", step, healthy).isZero();
    health.path("targets").properties().forEach(t -> {
      if (t.getValue().path("configured").asBoolean() && !FAULTED.contains(t.getKey())) {
        assertThat(t.getValue().path("health").asText()).as("%s: %s, not faulted here: %s", step, t.getKey(),
            t.getValue()).isIn("healthy", "unknown");
      }
    });
    assertThat(health.path("tiers").isEmpty()).as("%s: /health lists the tiers", step).isFalse();
    health.path("tiers").forEach(feature -> {
      assertThat(feature.path("tier_lease").asText()).as("%s: one gateway decides alone: %s", step, feature)
          .isEqualTo("alone");
      feature.path("aliases").forEach(alias -> {
        if (alias.path("alias").asText().equals("healthy")) {
          assertThat(alias.path("tier").asText()).as("%s: %s", step, alias).isEqualTo("T0");
        }
      });
    });
    String documented = documentedStatus(health);
    assertThat(health.path("status").asText()).as("%s: the documented verdict for %s", step, health.path("targets"))
        .isEqualTo(documented);
    assertThat(documented).as("%s: the healthy alias's target is CLOSED", step).isNotEqualTo("unhealthy");
    assertThat(answer.statusCode()).as(step).isEqualTo(200);
  }

  /**
   * The overall status docs/gateway.md ("Health") gives for these targets: from the configured ones
   * with evidence (not {@code unknown}) only; {@code unhealthy} when every such circuit is OPEN,
   * {@code degraded} when one is not CLOSED or one with at least 5 calls succeeded under 95%, else
   * {@code healthy}. A name a client invented never counts (a gateway with aliases configured).
   */
  private static String documentedStatus(JsonNode health) {
    List<JsonNode> known = new ArrayList<>();
    health.path("targets").forEach(t -> {
      if (t.path("configured").asBoolean() && !t.path("health").asText().equals("unknown")) {
        known.add(t);
      }
    });
    if (!known.isEmpty() && known.stream().allMatch(t -> t.path("circuit").asText().equals("OPEN"))) {
      return "unhealthy";
    }
    boolean degraded = known.stream().anyMatch(t -> !t.path("circuit").asText().equals("CLOSED")
        || (t.path("calls").asLong() >= 5 && t.path("success_rate").asDouble() < 0.95));
    return degraded ? "degraded" : "healthy";
  }

  private JsonNode health() throws Exception {
    return Json.tryParse(h.get("/health").body());
  }

  private static JsonNode target(JsonNode health, String id) {
    JsonNode target = health.path("targets").path(id);
    assertThat(target.isObject()).as("%s in %s", id, health.path("targets")).isTrue();
    return target;
  }

  /** A JSON request for {@code model} from the tenant holding {@code key}, each with a prompt of its own. */
  private HttpResponse<String> ask(String model, String key) throws Exception {
    return h.post("/v1/messages", "{\"model\":\"" + model + "\",\"max_tokens\":16,\"messages\":"
        + "[{\"role\":\"user\",\"content\":\"request " + (asked++) + "\"}]}", Map.of("x-api-key", key));
  }

  /** A batch of one request for the healthy alias. */
  private HttpResponse<String> createBatch(Map<String, String> headers) throws Exception {
    return h.post("/v1/messages/batches", "{\"requests\":[{\"custom_id\":\"r0\",\"params\":{\"model\":\"healthy\","
        + "\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}]}", headers);
  }
}
