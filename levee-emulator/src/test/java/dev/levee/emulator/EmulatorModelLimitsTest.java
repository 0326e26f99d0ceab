package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Regression (tester): {@code max_tokens} above a model's maximum output ({@code 10000000}) was
 * answered with 200; the API answers 400 {@code invalid_request_error} "max_tokens: 10000000 >
 * 64000, which is the maximum allowed number of output tokens for claude-…". The limits are the
 * "Max output" of Anthropic's models overview and each model's page.
 */
class EmulatorModelLimitsTest extends InstantEmulatorTest {

  @ParameterizedTest
  @CsvSource({
      "claude-haiku-4-5, 64000", "claude-haiku-4-5-20251001, 64000",
      "claude-sonnet-4-5, 64000", "claude-sonnet-4-5-20250929, 64000",
      "claude-opus-4-5, 64000", "claude-opus-4-5-20251101, 64000",
      "claude-opus-4-6, 128000", "claude-sonnet-4-6, 128000"})
  void maxTokensAboveTheModelsMaximumOutputIsTheApis400(String model, int limit) throws Exception {
    HttpResponse<String> above = post(model, limit + 1, false);
    HttpResponse<String> huge = post(model, 10_000_000, true);

    Wire.assertInvalidRequest(above, "max_tokens: " + (limit + 1) + " > " + limit
        + ", which is the maximum allowed number of output tokens for " + model);
    Wire.assertInvalidRequest(huge, "max_tokens: 10000000 > " + limit
        + ", which is the maximum allowed number of output tokens for " + model);
    assertThat(emulator.log().getLast().stream()).as("the log still says it was a stream").isTrue();
  }

  @ParameterizedTest
  @CsvSource({"claude-haiku-4-5, 64000", "claude-sonnet-4-6, 128000"})
  void maxTokensAtTheModelsMaximumIsAnswered(String model, int limit) throws Exception {
    HttpResponse<String> at = post(model, limit, false);

    assertThat(at.statusCode()).as(at.body()).isEqualTo(200);
  }

  @Test
  void aFaithfulEmulatorAppliesTheSameLimit() throws Exception {
    try (Emulator faithful = Emulator.start(EmulatorOptions.builder().faithful(true)
        .timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).build())) {
      ObjectNode body = Wire.body("claude-sonnet-4-5-20250929", false, "hi").put("max_tokens", 10_000_000);

      Wire.assertInvalidRequest(new Wire(faithful).post("/v1/messages", body), "max_tokens: 10000000 > 64000, which is the "
          + "maximum allowed number of output tokens for claude-sonnet-4-5-20250929");
    }
  }

  @Test
  void namesWithoutAKnownLimitAreNotCapped() throws Exception {
    for (String model : new String[] {"emu-ok", "claude-big", "emu-dup"}) {
      HttpResponse<String> answer = post(model, 10_000_000, false);

      assertThat(answer.statusCode()).as(model + ": " + answer.body()).isEqualTo(200);
    }
  }

  @Test
  void aRateLimitSuffixKeepsTheModelsLimit() throws Exception {
    Wire.assertInvalidRequest(post("claude-sonnet-4-6-limit-3r-per-5s", 128_001, false), "max_tokens: 128001 > 128000, "
        + "which is the maximum allowed number of output tokens for claude-sonnet-4-6-limit-3r-per-5s");
  }

  private HttpResponse<String> post(String model, int maxTokens, boolean stream) throws Exception {
    return wire.post("/v1/messages", Wire.body(model, stream, "hi").put("max_tokens", maxTokens));
  }
}
