package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.ratelimit.RateLimitHeaders;
import dev.levee.core.chain.Target;
import dev.levee.core.route.Circuits;
import dev.levee.core.route.Cooling;
import dev.levee.core.route.Preference;
import dev.levee.core.route.PriceTable;
import dev.levee.core.route.RateLimits;
import dev.levee.core.route.RouteRequest;
import dev.levee.core.route.RouterStatistics;
import dev.levee.core.route.ScoringRouter;
import dev.levee.core.route.StatisticsConfig;
import dev.levee.core.route.TaskFitMatrix;
import dev.levee.core.route.TaskType;
import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Pacing end to end, without the gateway: the emulator enforces 10 requests per minute on one
 * target; the router, fed the answers' rate-limit headers, sends 30 requests in 5 s of the
 * emulator's time without spending an attempt on a certain 429.
 */
class PacingAgainstEmulatorTest {

  private final ManualClock clock = new ManualClock();
  private final Emulator emulator = Emulator.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO)
      .deltaDelay(Duration.ZERO).ticker(clock).sleeper(clock).build());
  private final Wire wire = new Wire(emulator);

  @AfterEach
  void stop() {
    emulator.close();
  }

  @Test
  void thirtyRequestsInFiveSecondsAgainstTenPerMinuteMeetNo429() throws Exception {
    Target limited = new Target("emu", "emu-ok-limit-10r");
    Target other = new Target("emu", "emu-ok");
    RateLimits limits = new RateLimits(clock);
    ScoringRouter router = new ScoringRouter(new RouterStatistics(StatisticsConfig.DEFAULT, clock),
        PriceTable.defaults(), TaskFitMatrix.defaults(), Circuits.CLOSED, Cooling.NONE, limits);
    RouteRequest request = new RouteRequest(TaskType.SIMPLE, 10, Duration.ofSeconds(5), Preference.BALANCED);
    Map<String, Integer> servedBy = new HashMap<>();
    int upstream429s = 0;

    for (int i = 0; i < 30; i++) {
      clock.advance(Duration.ofMillis(5000 / 30));
      for (Target target : router.route(List.of(limited, other), request).order()) {
        if (!limits.tryReserve(target, request.inputTokens())) {
          continue;
        }
        HttpResponse<String> answer = wire.post("/v1/messages", Wire.body(target.model(), false, "question " + i));
        limits.observe(target, RateLimitHeaders.parse(name -> answer.headers().firstValue(name).orElse(null),
            InstantSource.system()));
        if (answer.statusCode() == 429) {
          upstream429s++;
          continue;
        }
        assertThat(answer.statusCode()).isEqualTo(200);
        servedBy.merge(target.model(), 1, Integer::sum);
        break;
      }
    }

    assertThat(upstream429s).isLessThanOrEqualTo(1);
    assertThat(servedBy).containsEntry(limited.model(), 10).containsEntry(other.model(), 20);
    assertThat(emulator.log()).filteredOn(entry -> entry.action().equals("429")).hasSizeLessThanOrEqualTo(1);
  }
}
