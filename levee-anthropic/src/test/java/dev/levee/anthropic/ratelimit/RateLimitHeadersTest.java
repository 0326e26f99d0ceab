package dev.levee.anthropic.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.route.RateLimitReading;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rate-limit headers of an answer, as the pacing state reads them. */
class RateLimitHeadersTest {

  private static final Instant NOW = Instant.parse("2026-12-01T08:40:30Z");
  private final Map<String, String> headers = new HashMap<>();

  private RateLimitReading parse() {
    return RateLimitHeaders.parse(headers::get, InstantSource.fixed(NOW));
  }

  @Test
  void readsEveryBucketWithItsWaitUntilReset() {
    headers.put("anthropic-ratelimit-requests-remaining", "49");
    headers.put("anthropic-ratelimit-requests-reset", "2026-12-01T08:41:00Z");
    headers.put("anthropic-ratelimit-tokens-remaining", "79000");
    headers.put("anthropic-ratelimit-tokens-reset", "2026-12-01T08:40:31.500Z");
    headers.put("anthropic-ratelimit-input-tokens-remaining", "40000");
    headers.put("anthropic-ratelimit-input-tokens-reset", "2026-12-01T09:40:35+01:00");
    headers.put("anthropic-ratelimit-output-tokens-remaining", "0");
    headers.put("anthropic-ratelimit-output-tokens-reset", "2026-12-01T08:40:40Z");

    RateLimitReading reading = parse();

    assertThat(reading.requests()).contains(new RateLimitReading.Bucket(49, Duration.ofSeconds(30)));
    assertThat(reading.tokens()).contains(new RateLimitReading.Bucket(79_000, Duration.ofMillis(1500)));
    assertThat(reading.inputTokens()).contains(new RateLimitReading.Bucket(40_000, Duration.ofSeconds(5)));
    assertThat(reading.outputTokens()).contains(new RateLimitReading.Bucket(0, Duration.ofSeconds(10)));
  }

  @Test
  void noHeadersReadAsNothingKnown() {
    assertThat(parse()).isEqualTo(RateLimitReading.NONE);
    assertThat(parse().isEmpty()).isTrue();
  }

  @Test
  void aBucketNeedsBothValidHeadersAndAPastResetIsNoWait() {
    headers.put("anthropic-ratelimit-requests-remaining", "-1");
    headers.put("anthropic-ratelimit-requests-reset", "2026-12-01T08:41:00Z");
    headers.put("anthropic-ratelimit-tokens-remaining", "12.5");
    headers.put("anthropic-ratelimit-tokens-reset", "2026-12-01T08:41:00Z");
    headers.put("anthropic-ratelimit-input-tokens-remaining", "100");
    headers.put("anthropic-ratelimit-input-tokens-reset", "in a minute");
    headers.put("anthropic-ratelimit-output-tokens-remaining", "7");
    headers.put("anthropic-ratelimit-output-tokens-reset", "2026-12-01T08:00:00Z");

    RateLimitReading reading = parse();

    assertThat(reading.requests()).isEmpty();
    assertThat(reading.tokens()).isEmpty();
    assertThat(reading.inputTokens()).isEmpty();
    assertThat(reading.outputTokens()).contains(new RateLimitReading.Bucket(7, Duration.ZERO));
  }
}
