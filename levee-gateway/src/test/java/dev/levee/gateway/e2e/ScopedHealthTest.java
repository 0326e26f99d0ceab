package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.GatewayClock;
import dev.levee.gateway.tier.TierBoard;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, "health has a scope": one gateway, one emulator, aliases used in turn, half of them
 * with a faulty primary — one per fault of the issue (529, 500, reset, hang, cut, stall, in-band
 * error), so seven faulty and seven healthy aliases — all in the one {@code default} feature.
 * Real time (hangs and stalls need the watchdog), tiers evaluated after every round. Breakers
 * are off: with them the faulty primaries would be skipped after five failures and their windows
 * would never reach the minimum volume — absorbed at T0, which proves less.
 */
class ScopedHealthTest {

  /**
   * Faulty primaries, and whether their fault shows in a stream (cut, stall, in-band error: asked
   * with {@code "stream": true}) or in JSON. JSON faults strike every attempt.
   */
  private static final Map<String, Boolean> FAULTS = new LinkedHashMap<>();

  static {
    FAULTS.put("emu-529", false);
    FAULTS.put("emu-500-once-always", false);
    FAULTS.put("emu-reset-always", false);
    FAULTS.put("emu-hang", false);
    FAULTS.put("emu-cut-3", true);
    FAULTS.put("emu-stall-3", true);
    FAULTS.put("emu-error-3", true);
  }

  private static final int ROUNDS = 25;

  private static final String POLICY = """
      features:
        default:
          priority: standard
      tiers:
        evaluate-every: 1h              # the test evaluates tiers itself, after every round; the scheduler runs the watchdogs
      policy:
        deadline: 10s
        attempt-timeout: 500ms
        min-attempt-time: 10ms
        retry: { max-retries: 1, base-delay: 10ms, max-delay: 50ms }
        breaker: off                    # so that the faulty primaries keep being called and their signals show
        retry-budget: { max: 1000, ratio: 0.5 }
        stream: { ttft-timeout: 500ms, idle-timeout: 300ms }
      """;

  private record Alias(String name, List<Target> targets, boolean faulty, boolean stream) {}

  /**
   * @param streamFaultsEveryAttempt whether the stream faults strike every attempt ({@code -always}:
   *     no resume can succeed on the primary) or only a conversation's first (the resume answers)
   */
  private static List<Alias> aliases(String faultyFallback, boolean streamFaultsEveryAttempt) {
    List<Alias> all = new ArrayList<>();
    int i = 0;
    for (Map.Entry<String, Boolean> fault : FAULTS.entrySet()) {
      i++;
      String primary = fault.getKey() + (fault.getValue() && streamFaultsEveryAttempt ? "-always" : "");
      all.add(new Alias("faulty-" + i, List.of(Target.parse("emu/" + primary), Target.parse("emu/" + faultyFallback)),
          true, fault.getValue()));
      all.add(new Alias("healthy-" + i, List.of(Target.parse("emu/claude-healthy-" + i), Target.parse("emu/emu-ok")),
          false, i % 2 == 0));
    }
    return all;
  }

  private static String config(List<Alias> aliases) {
    StringBuilder yaml = new StringBuilder("models:\n");
    for (Alias a : aliases) {
      yaml.append("  ").append(a.name()).append(":\n    chain: [")
          .append(String.join(", ", a.targets().stream().map(Target::id).toList())).append("]\n");
    }
    return yaml + POLICY;
  }

  private static Harness start(List<Alias> aliases) throws Exception {
    EmulatorOptions emulator = EmulatorOptions.builder().timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).build();
    GatewayClock seeded = new GatewayClock(GatewayClock.system().ticker(), GatewayClock.system().sleeper(),
        InstantSource.system(), new java.util.SplittableRandom(7), GatewayClock.system().scheduler());
    return Harness.start(emulator, config(aliases), "", seeded);
  }

  private static HttpResponse<String> ask(Harness h, Alias alias, int round) throws Exception {
    return h.post("/v1/messages", "{\"model\":\"" + alias.name() + "\",\"max_tokens\":64,\"stream\":" + alias.stream()
            + ",\"messages\":[{\"role\":\"user\",\"content\":\"round " + round + " for " + alias.name() + "\"}]}",
        Map.of("x-api-key", "k", "content-type", "application/json"));
  }

  private static Tier tier(Harness h, Alias alias) {
    return h.gateway.tiers().tier("default", alias.name(), alias.targets());
  }

  private static void assertHealthyAnswer(Alias alias, HttpResponse<String> r) {
    assertThat(r.statusCode()).as(alias.name()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-levee-tier")).as(alias.name()).contains("T0");
    assertThat(r.headers().firstValue("x-levee-cache")).as(alias.name() + ": never from the cache").isEmpty();
    assertThat(r.headers().firstValue("x-levee-degraded")).as(alias.name() + ": never reduced or static").isEmpty();
    assertThat(r.headers().firstValue("x-levee-model")).as(alias.name() + ": answered by its own primary")
        .contains(alias.targets().getFirst().id());
  }

  @Test
  void absorbedFaultsMayTakeTheirAliasToT1ButNeverDegradeAHealthyAlias() throws Exception {
    List<Alias> aliases = aliases("emu-ok", false);
    Map<String, Set<Tier>> seen = new LinkedHashMap<>();
    try (Harness h = start(aliases)) {
      TierBoard tiers = h.gateway.tiers();
      for (int round = 0; round < ROUNDS; round++) {
        for (Alias alias : aliases) {
          HttpResponse<String> r = ask(h, alias, round);
          if (alias.faulty()) {
            assertThat(r.statusCode()).as(alias.name() + " is answered").isEqualTo(200);
            assertThat(r.headers().firstValue("x-levee-tier")).as(alias.name()).hasValueSatisfying(
                t -> assertThat(t).isIn("T0", "T1"));
          } else {
            assertHealthyAnswer(alias, r);
          }
        }
        tiers.evaluateAll();
        for (Alias alias : aliases) {
          seen.computeIfAbsent(alias.name(), k -> EnumSet.noneOf(Tier.class)).add(tier(h, alias));
        }
      }
      System.out.println("absorbed faults, tiers seen: " + seen);
      JsonNode health = Json.tryParse(h.get("/health").body());
      System.out.println("health tiers: " + health.path("tiers"));
      assertThat(health.path("target_health").path("emu/emu-529").path("server_error_share").asDouble()).isPositive();
    }
    for (Alias alias : aliases) {
      if (alias.faulty()) {
        assertThat(seen.get(alias.name())).as(alias.name() + ": absorbed, at most T1").isSubsetOf(Tier.T0, Tier.T1);
      } else {
        assertThat(seen.get(alias.name())).as(alias.name() + ": healthy, never leaves T0").containsOnly(Tier.T0);
      }
    }
    assertThat(seen.entrySet()).as("some absorbed fault does move its alias to T1 (the reduced target skips it)")
        .anySatisfy(e -> assertThat(e.getValue()).contains(Tier.T1));
  }

  @Test
  void whenTheFallbacksFailTooTheAffectedAliasesStepDownAsTheTableSaysAndTheOthersStayAtT0() throws Exception {
    List<Alias> aliases = aliases("emu-503", true);
    Map<String, Set<Tier>> seen = new LinkedHashMap<>();
    try (Harness h = start(aliases)) {
      TierBoard tiers = h.gateway.tiers();
      for (int round = 0; round < ROUNDS; round++) {
        for (Alias alias : aliases) {
          HttpResponse<String> r = ask(h, alias, round);
          if (!alias.faulty()) {
            assertHealthyAnswer(alias, r);
          }
        }
        tiers.evaluateAll();
        for (Alias alias : aliases) {
          seen.computeIfAbsent(alias.name(), k -> EnumSet.noneOf(Tier.class)).add(tier(h, alias));
        }
      }
      System.out.println("failing fallbacks, tiers seen: " + seen);
      assertThat(tiers.tier("default")).as("the feature's tier is its worst alias's").isEqualTo(Tier.T2);
      JsonNode feature = Json.tryParse(h.get("/health").body()).path("tiers").get(0);
      assertThat(feature.path("tier").asText()).isEqualTo("T2");
      assertThat(feature.path("aliases").findValuesAsText("cause")).isNotEmpty()
          .allSatisfy(cause -> assertThat(cause).contains("alias faulty-"));
      String metrics = h.get("/metrics").body();
      assertThat(RateLimitCooldownTest.metric(metrics, "levee_tier_alias", "alias=\"faulty-1\"")).isEqualTo(2.0);
      assertThat(RateLimitCooldownTest.metric(metrics, "levee_tier_alias", "alias=\"healthy-1\"")).isEqualTo(0.0);
    }
    for (Alias alias : aliases) {
      if (alias.faulty()) {
        assertThat(seen.get(alias.name())).as(alias.name() + ": clients see errors: burn takes a standard feature to T2")
            .contains(Tier.T2).doesNotContain(Tier.T3);
      } else {
        assertThat(seen.get(alias.name())).as(alias.name() + ": healthy, never leaves T0").containsOnly(Tier.T0);
      }
    }
  }
}
