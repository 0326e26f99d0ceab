package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.ratelimit.RateLimitHeaders;
import dev.levee.core.route.RateLimitReading;
import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Rate limits a model name asks for are enforced: 429 with retry-after past the limit, headers on every answer. */
class RateLimitEnforcementTest {

  private final ManualClock clock = new ManualClock();
  private final Emulator emulator = Emulator.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO)
      .deltaDelay(Duration.ZERO).ticker(clock).sleeper(clock).build());
  private final Wire wire = new Wire(emulator);

  @AfterEach
  void stop() {
    emulator.close();
  }

  private HttpResponse<String> post(String model) throws Exception {
    return wire.post("/v1/messages", Wire.body(model, false, "hi"));
  }

  @Test
  void pastNRequestsInTheWindowTheModelAnswers429UntilTheWindowEnds() throws Exception {
    String model = "emu-ok-limit-3r-per-10s";
    for (int left = 2; left >= 0; left--) {
      HttpResponse<String> ok = post(model);
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.headers().firstValue("anthropic-ratelimit-requests-limit")).contains("3");
      assertThat(ok.headers().firstValue("anthropic-ratelimit-requests-remaining")).contains(Integer.toString(left));
    }
    clock.advance(Duration.ofSeconds(4));

    HttpResponse<String> limited = post(model);

    assertThat(limited.statusCode()).isEqualTo(429);
    assertThat(Json.tryParse(limited.body()).path("error").path("type").asText()).isEqualTo("rate_limit_error");
    assertThat(limited.headers().firstValue("retry-after")).contains("6");
    assertThat(limited.headers().firstValue("anthropic-ratelimit-requests-remaining")).contains("0");
    RateLimitReading reading = RateLimitHeaders.parse(name -> limited.headers().firstValue(name).orElse(null),
        InstantSource.system());
    assertThat(reading.requests().orElseThrow().remaining()).isZero();
    assertThat(reading.requests().orElseThrow().untilReset()).as("the window's end, rounded up to a whole second")
        .isBetween(Duration.ofSeconds(4), Duration.ofSeconds(7));

    clock.advance(Duration.ofSeconds(6));
    assertThat(post(model).statusCode()).isEqualTo(200);
    assertThat(emulator.log()).extracting(LogEntry::action).containsExactly("ok", "ok", "ok", "429", "ok");
  }

  @Test
  void pastTInputTokensInTheWindowTheModelAnswers429() throws Exception {
    JsonNode probe = wire.message(Wire.body("emu-ok", false, "hi"));
    long tokens = probe.path("usage").path("input_tokens").asLong();
    assertThat(tokens).isPositive();
    String model = "emu-ok-limit-" + (2 * tokens) + "t";

    HttpResponse<String> first = post(model);
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.headers().firstValue("anthropic-ratelimit-input-tokens-remaining")).contains(Long.toString(tokens));
    assertThat(post(model).statusCode()).isEqualTo(200);
    HttpResponse<String> third = post(model);

    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.headers().firstValue("retry-after")).contains("60");
    assertThat(third.headers().firstValue("anthropic-ratelimit-tokens-remaining")).contains("0");
  }

  @Test
  void limitsArePerModelNameAndFaultsStillApplyToAdmittedRequests() throws Exception {
    assertThat(post("emu-529-limit-1r").statusCode()).isEqualTo(529);
    assertThat(post("emu-529-limit-1r").statusCode()).isEqualTo(429);
    assertThat(post("claude-sonnet-4-6-limit-1r").statusCode()).isEqualTo(200);
    assertThat(post("claude-sonnet-4-6-limit-1r").statusCode()).isEqualTo(429);
    assertThat(post("emu-ok").statusCode()).isEqualTo(200);
  }

  @Test
  void resetForgetsTheWindows() throws Exception {
    assertThat(post("emu-ok-limit-1r").statusCode()).isEqualTo(200);
    assertThat(post("emu-ok-limit-1r").statusCode()).isEqualTo(429);

    emulator.reset();

    assertThat(post("emu-ok-limit-1r").statusCode()).isEqualTo(200);
  }

  @Test
  void aMalformedLimitIsJustAnUnknownModel() throws Exception {
    assertThat(post("emu-ok-limit-0r").statusCode()).isEqualTo(404);
    assertThat(post("emu-ok-limit-r").statusCode()).isEqualTo(404);
  }
}
