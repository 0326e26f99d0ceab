package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.GatewayClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 4's drill, on compressed (virtual) time: a 429 storm on the emulator for 180 s, of 30%
 * of the calls (issue 4) and of 100% (issue 10: the way up follows the short window). The
 * tier is at or below T2 within 60 s; a repeating request mix is answered from the cache at
 * least 80% of the time during the storm; the tier is back at T0 within 300 s after the storm.
 * Gateway, emulator and tiers all run on one {@link ManualClock}; requests are real HTTP.
 */
class StormDrillTest {

  private static final Duration STORM_START = Duration.ofSeconds(120);
  private static final Duration STORM_END = Duration.ofSeconds(300);
  private static final Duration DRILL_END = Duration.ofSeconds(700);
  private static final int PROMPTS = 20;

  private static final String CONFIG = """
      models:
        chat:
          chain: [emu/claude-main]
      features:
        default:
          priority: standard
      policy:
        deadline: 30s
        attempt-timeout: 10s
        retry: { max-retries: 1, base-delay: 100ms, max-delay: 1s }
        retry-budget: { max: 100, ratio: 0.2 }
      """;

  record Answer(long atSeconds, int status, String tier, String cache) {
    boolean fromCache() {
      return cache != null && !cache.equals("miss");
    }
  }

  @ParameterizedTest(name = "a storm of {0} 429s")
  @ValueSource(doubles = {0.3, 1.0})
  void aStormStepsDownServesFromCacheAndStepsBackUp(double share) throws Exception {
    ManualClock clock = new ManualClock();
    long zero = clock.nanos();
    EmulatorOptions emulator = EmulatorOptions.builder().ticker(clock).sleeper(clock)
        .timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).seed(11)
        .scenario(Scenario.builder().seed(11).phase(Scenario.Phase.builder().model("claude-main")
            .from(STORM_START).to(STORM_END).status(429).rate(share).retryAfter(Duration.ofSeconds(1)).build()).build())
        .build();
    GatewayClock virtual = new GatewayClock(clock, clock, InstantSource.system(), new SplittableRandom(5), clock);
    List<Answer> answers = new ArrayList<>();
    List<long[]> tiers = new ArrayList<>(); // {second, tier ordinal}
    try (Harness h = Harness.start(emulator, CONFIG, "", virtual)) {
      h.emulator.reset(); // scenario time zero = now
      long nextRequest = 0;
      long nextEvaluation = 5;
      int n = 0;
      while (seconds(clock, zero) < DRILL_END.toSeconds()) {
        long now = seconds(clock, zero);
        if (now >= nextEvaluation) { // the board evaluated itself on the virtual clock's scheduler
          tiers.add(new long[] {now, h.gateway.tiers().tier("default").ordinal()});
          nextEvaluation += 5;
        }
        if (now >= nextRequest) {
          answers.add(ask(h, now, n++ % PROMPTS));
          answers.add(ask(h, now, n++ % PROMPTS));
          nextRequest = now + 1;
        }
        clock.advance(Duration.ofMillis(250));
      }
    }

    System.out.println("drill (" + share + " 429s) tiers: " + describe(tiers));
    long degradedAt = tiers.stream().filter(t -> t[0] >= STORM_START.toSeconds() && t[1] >= Tier.T2.ordinal())
        .mapToLong(t -> t[0]).findFirst().orElseThrow(() -> new AssertionError("never reached T2: " + describe(tiers)));
    assertThat(degradedAt - STORM_START.toSeconds()).as("seconds from storm start to T2 or below").isLessThanOrEqualTo(60);

    List<Answer> duringStorm = answers.stream()
        .filter(a -> a.atSeconds() >= STORM_START.toSeconds() && a.atSeconds() < STORM_END.toSeconds()).toList();
    double hitRate = duringStorm.stream().filter(Answer::fromCache).count() / (double) duringStorm.size();
    System.out.println("drill: cache hit rate during the storm " + hitRate + " over " + duringStorm.size());
    assertThat(hitRate).as("cache hit rate during the storm").isGreaterThanOrEqualTo(0.8);
    assertThat(answers).as("every request was answered").allMatch(a -> a.status() == 200);

    long backAt = lastReturnToT0(tiers);
    assertThat(backAt).as("back at T0 after the storm: " + describe(tiers)).isGreaterThan(STORM_END.toSeconds());
    assertThat(backAt - STORM_END.toSeconds()).as("seconds from storm end to T0").isLessThanOrEqualTo(300);
    // derived, not tuned: the short window decides the way up (issue 10), so once the storm ends the
    // SLI window (60 s) clears, then two steps of healthy-for (30 s) each, read every 5 s: <= 130 s.
    // Waiting for the 5 min burn to fall below 2 (the rule before) took 225-255 s here.
    assertThat(backAt - STORM_END.toSeconds()).as("the short window decides the way up").isLessThanOrEqualTo(130);
  }

  private static Answer ask(Harness h, long now, int prompt) throws Exception {
    HttpResponse<String> response = h.post("/v1/messages",
        "{\"model\":\"chat\",\"max_tokens\":256,\"messages\":[{\"role\":\"user\",\"content\":\"question " + prompt + "\"}]}",
        Map.of("x-api-key", "drill-key", "content-type", "application/json"));
    return new Answer(now, response.statusCode(), response.headers().firstValue("x-levee-tier").orElse(null),
        response.headers().firstValue("x-levee-cache").orElse(null));
  }

  /** The second from which the tier stayed at T0 to the end. */
  private static long lastReturnToT0(List<long[]> tiers) {
    long since = -1;
    for (long[] t : tiers) {
      if (t[1] == Tier.T0.ordinal()) {
        if (since < 0) {
          since = t[0];
        }
      } else {
        since = -1;
      }
    }
    return since;
  }

  private static long seconds(ManualClock clock, long zero) {
    return (clock.nanos() - zero) / 1_000_000_000L;
  }

  private static String describe(List<long[]> tiers) {
    StringBuilder s = new StringBuilder();
    long last = -1;
    for (long[] t : tiers) {
      if (t[1] != last) {
        s.append(t[0]).append("s:T").append(t[1]).append(' ');
        last = t[1];
      }
    }
    return s.toString();
  }
}
