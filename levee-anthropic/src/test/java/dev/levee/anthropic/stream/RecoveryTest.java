package dev.levee.anthropic.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.error.ErrorClassifier;
import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Endpoint;
import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.anthropic.upstream.UpstreamClient;
import dev.levee.anthropic.upstream.Upstreams;
import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.ChainPolicy;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.chain.RetryBudgets;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.ManualClock;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which targets a recovery asks, in which order (issue 10: a silent target is not its own first choice). */
class RecoveryTest {

  private static final Target A = Target.parse("up/a");
  private static final Target B = Target.parse("up/b");
  private static final Target C = Target.parse("up/c");

  private final ManualClock clock = new ManualClock();
  private final UpstreamClient client = new UpstreamClient(Duration.ofSeconds(1));
  private final Recovery recovery = recovery(List.of(A, B, C));

  @AfterEach
  void close() {
    client.close();
  }

  @Test
  void afterACutOrAStallTheOtherTargetsComeFirstAndTheBrokenOneLast() {
    assertThat(recovery.order(B, FailureKind.CONNECTION)).containsExactly(A, C, B);
    assertThat(recovery.order(A, FailureKind.TIMEOUT)).containsExactly(B, C, A);
  }

  @Test
  void afterAnInBandErrorTheAnsweringTargetIsAskedFirst() {
    assertThat(recovery.order(B, FailureKind.OVERLOADED)).containsExactly(B, A, C);
    assertThat(recovery.order(C, FailureKind.SERVER_ERROR)).containsExactly(C, A, B);
  }

  @Test
  void aTargetOutsideTheRouteIsStillAskedInItsPlace() {
    Target other = Target.parse("up/other"); // e.g. a reduced target that answered for a tier
    assertThat(recovery.order(other, FailureKind.CONNECTION)).containsExactly(A, B, C, other);
  }

  @Test
  void theOnlyTargetOfARouteRecoversItself() {
    assertThat(recovery(List.of(A)).order(A, FailureKind.TIMEOUT)).containsExactly(A);
  }

  private Recovery recovery(List<Target> targets) {
    byte[] body = "{\"model\":\"m\",\"max_tokens\":5,\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"
        .getBytes(StandardCharsets.UTF_8);
    OriginalRequest request;
    try {
      request = new OriginalRequest("/v1/messages", null, Map.of(), MessagesRequest.parse(body));
    } catch (MessagesRequest.InvalidRequestException e) {
      throw new AssertionError(e);
    }
    FallbackChain chain = new FallbackChain(ChainPolicy.DEFAULT, new Breakers(CircuitBreakerConfig.DEFAULT, clock, t -> { }),
        RetryBudgets.one(new RetryBudget(10, 0.5)), CallObserver.NONE, clock, clock, new SplittableRandom(1));
    Upstreams upstreams = new Upstreams(t -> new Endpoint(URI.create("http://127.0.0.1:9"), "k"), client,
        new ErrorClassifier(InstantSource.system()), new Watchdog(clock, clock), clock);
    return new Recovery(request, targets, true, StreamSettings.DEFAULT, t -> true, new Cancellation(), chain, upstreams);
  }
}
