package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An API fidelity audit (session 20): the {@code emu-429-*} faults answered 429 while their
 * {@code anthropic-ratelimit-requests-remaining} said 3,992 of 4,000 — headers a client paces on,
 * contradicting the error — and an enforced limit's reset times carried nanoseconds ({@code
 * …:50.933211349Z}) where the API gives whole seconds. A 429 now says no request is left until its
 * {@code retry-after} has passed, and every reset is a whole second, rounded up.
 */
class RateLimitHeadersAgreeWith429RegressionTest {

  private final ManualClock clock = new ManualClock();
  private final Emulator emulator = Emulator.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO)
      .deltaDelay(Duration.ZERO).ticker(clock).sleeper(clock).build());
  private final Wire wire = new Wire(emulator);

  @AfterEach
  void stop() {
    emulator.close();
  }

  @Test
  void a429FaultSaysNoRequestIsLeftUntilItsRetryAfter() throws Exception {
    Instant before = Instant.now();

    HttpResponse<String> limited = wire.post("/v1/messages", Wire.body("emu-429-ra7-always", false, "hi"));

    assertThat(limited.statusCode()).isEqualTo(429);
    assertThat(limited.headers().firstValue("retry-after")).hasValue("7");
    assertThat(limited.headers().firstValue("anthropic-ratelimit-requests-remaining")).hasValue("0");
    Instant reset = Instant.parse(limited.headers().firstValue("anthropic-ratelimit-requests-reset").orElseThrow());
    assertThat(reset.getNano()).isZero();
    assertThat(reset).isAfterOrEqualTo(before.plusSeconds(7).minusSeconds(1));
  }

  @Test
  void anEnforcedLimitsResetIsAWholeSecond() throws Exception {
    String model = "emu-ok-limit-1r-per-10s";
    clock.advance(Duration.ofMillis(1_234)); // the window's end is then not on a whole second of the wall clock
    assertThat(wire.post("/v1/messages", Wire.body(model, false, "hi")).statusCode()).isEqualTo(200);
    clock.advance(Duration.ofMillis(333));

    HttpResponse<String> limited = wire.post("/v1/messages", Wire.body(model, false, "hi"));

    assertThat(limited.statusCode()).isEqualTo(429);
    String reset = limited.headers().firstValue("anthropic-ratelimit-requests-reset").orElseThrow();
    assertThat(Instant.parse(reset).getNano()).as(reset).isZero();
  }
}
