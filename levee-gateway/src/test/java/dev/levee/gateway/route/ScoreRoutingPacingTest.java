package dev.levee.gateway.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.Attempt;
import dev.levee.core.chain.AttemptContext;
import dev.levee.core.chain.AttemptResult;
import dev.levee.core.chain.Target;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.route.Circuits;
import dev.levee.core.route.Cooling;
import dev.levee.core.route.Preference;
import dev.levee.core.route.RouteDecision;
import dev.levee.core.route.RouteRequest;
import dev.levee.core.route.TaskType;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.AliasChain;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pacing a routed request against the rate-limit headers, on a manual clock. */
class ScoreRoutingPacingTest {

  private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
  private static final Target A = new Target("u", "claude-sonnet-4-6");
  private static final Target B = new Target("u", "claude-haiku-4-5");
  private static final AliasChain ALIAS = new AliasChain("smart", List.of(A, B), true, true, null, RouteDefaults.DEFAULT);
  private static final RouteRequest REQUEST = new RouteRequest(TaskType.CODE, 100, Duration.ofSeconds(5), Preference.BALANCED);

  private final ManualClock clock = new ManualClock();
  private final List<String> choices = new ArrayList<>();
  private final ScoreRouting routing = new ScoreRouting(RoutingSettings.DEFAULT, clock, InstantSource.fixed(NOW), clock,
      Circuits.CLOSED, Cooling.NONE, (alias, target) -> choices.add(alias + " " + target.id()));

  private static Map<String, List<String>> requestsLeft(long remaining, Duration untilReset) {
    return Map.of("anthropic-ratelimit-requests-remaining", List.of(Long.toString(remaining)),
        "anthropic-ratelimit-requests-reset", List.of(NOW.plus(untilReset).toString()));
  }

  private Deadline deadline(Duration budget) {
    return Deadline.after(budget, clock);
  }

  @Test
  void theLastRemainingRequestIsReservedSoTheNextRequestGoesToTheOtherCandidate() throws Exception {
    routing.observe(A, requestsLeft(1, Duration.ofSeconds(30)));
    RouteDecision decision = routing.decide(ALIAS, REQUEST); // both decided before either is sent
    assertThat(decision.chosen()).contains(A); // Sonnet fits code best

    Paced first = routing.pace("smart", decision, 100, deadline(Duration.ofSeconds(10)), Duration.ofMillis(10));
    Paced second = routing.pace("smart", decision, 100, deadline(Duration.ofSeconds(10)), Duration.ofMillis(10));

    assertThat(((Paced.Go) first).targets()).containsExactly(A, B);
    assertThat(((Paced.Go) second).targets()).containsExactly(B, A);
    assertThat(choices).containsExactly("smart u/claude-sonnet-4-6", "smart u/claude-haiku-4-5");
  }

  @Test
  void anOnlyCandidateOutOfRequestsWaitsForTheResetRoundedUpToAWholeSecond() throws Exception {
    AliasChain single = new AliasChain("single", List.of(A), true, true, null, RouteDefaults.DEFAULT);
    routing.observe(A, requestsLeft(0, Duration.ofMillis(4200)));
    long start = clock.nanos();

    Paced paced = routing.pace("single", routing.decide(single, REQUEST), 100, deadline(Duration.ofSeconds(10)),
        Duration.ofMillis(10));

    assertThat(paced).isEqualTo(new Paced.Go(List.of(A), Duration.ofSeconds(5)));
    assertThat(Duration.ofNanos(clock.nanos() - start)).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aResetThatDoesNotFitTheDeadlineIsRefusedWithoutWaiting() throws Exception {
    AliasChain single = new AliasChain("single", List.of(A), true, true, null, RouteDefaults.DEFAULT);
    routing.observe(A, requestsLeft(0, Duration.ofSeconds(20)));
    long start = clock.nanos();

    Paced paced = routing.pace("single", routing.decide(single, REQUEST), 100, deadline(Duration.ofSeconds(10)),
        Duration.ofMillis(10));

    assertThat(paced).isEqualTo(new Paced.Refuse(A, Duration.ofSeconds(20)));
    assertThat(clock.nanos()).isEqualTo(start);
    assertThat(choices).isEmpty();
  }

  @Test
  void theHeadersOfAnErrorAnswerAreReadToo() throws Exception {
    Failure limited = new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error", "slow down",
        java.util.Optional.empty(), java.util.Optional.empty());
    Attempt<Reply> attempt = routing.reading(ctx -> AttemptResult.failed(limited,
        Reply.whole(429, requestsLeft(0, Duration.ofSeconds(30)), new byte[0])));

    attempt.call(new AttemptContext(A, 1, 0, false, Duration.ofSeconds(5), deadline(Duration.ofSeconds(10))));

    RouteDecision decision = routing.decide(ALIAS, REQUEST);
    assertThat(decision.chosen()).contains(B);
    assertThat(decision.excluded()).singleElement().satisfies(e -> assertThat(e.target()).isEqualTo(A));
  }
}
