package dev.levee.anthropic.error;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ErrorClassifierTest {

  private final ErrorClassifier classifier = new ErrorClassifier(InstantSource.fixed(Instant.parse("2026-11-29T12:00:00Z")));

  private static byte[] error(String type, String message) {
    return ("{\"type\":\"error\",\"error\":{\"type\":\"" + type + "\",\"message\":\"" + message + "\"}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private Failure classify(int status, Map<String, String> headers, byte[] body) {
    return classifier.classifyResponse(status, headers::get, body);
  }

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @CsvSource({
      "400, invalid_request_error, CLIENT_ERROR",
      "404, not_found_error, CLIENT_ERROR",
      "413, request_too_large, CLIENT_ERROR",
      "422, invalid_request_error, CLIENT_ERROR",
      "401, authentication_error, CREDENTIALS",
      "403, permission_error, CREDENTIALS",
      "429, rate_limit_error, RATE_LIMITED",
      "500, api_error, SERVER_ERROR",
      "502, api_error, SERVER_ERROR",
      "503, api_error, SERVER_ERROR",
      "504, timeout_error, SERVER_ERROR",
      "529, overloaded_error, OVERLOADED",
      "500, overloaded_error, OVERLOADED",
      "408, api_error, SERVER_ERROR"
  })
  void statusesFollowTheTaxonomy(int status, String type, FailureKind kind) {
    Failure failure = classify(status, Map.of(), error(type, "m"));

    assertThat(failure.kind()).isEqualTo(kind);
    assertThat(failure.status()).isEqualTo(status);
    assertThat(failure.errorType()).isEqualTo(type);
  }

  @Test
  void aRejectedKeyIsTheClientsErrorWhenItWasTheClientsOwnKey() {
    byte[] body = error("authentication_error", "invalid x-api-key");

    assertThat(classifier.classifyResponse(401, Map.<String, String>of()::get, body, true).kind())
        .isEqualTo(FailureKind.CLIENT_ERROR);
    assertThat(classifier.classifyResponse(403, Map.<String, String>of()::get, body, true).kind())
        .isEqualTo(FailureKind.CLIENT_ERROR);
    assertThat(classifier.classifyResponse(401, Map.<String, String>of()::get, body, false).kind())
        .isEqualTo(FailureKind.CREDENTIALS);
    assertThat(classifier.classifyResponse(529, Map.<String, String>of()::get, body, true).kind())
        .isEqualTo(FailureKind.OVERLOADED);
  }

  @Test
  void a429WithRetryAfterIsARateLimitWithItsWait() {
    Failure failure = classify(429, Map.of("retry-after", "2"), error("rate_limit_error", "slow down"));

    assertThat(failure.kind()).isEqualTo(FailureKind.RATE_LIMITED);
    assertThat(failure.retryAfter()).contains(Duration.ofSeconds(2));
    assertThat(failure.mayRetrySameTarget()).isTrue();
  }

  @Test
  void a429WithoutRetryAfterSayingTheSpendLimitWasReachedIsFinalForTheTarget() {
    Failure failure = classify(429, Map.of(),
        error("rate_limit_error", "You have reached your specified workspace API spend limit"));

    assertThat(failure.kind()).isEqualTo(FailureKind.SPEND_LIMIT);
    assertThat(failure.mayRetrySameTarget()).isFalse();
    assertThat(failure.kind().tryNextTarget()).isTrue();
  }

  @Test
  void aSpendLimitErrorCodeIsRecognisedToo() {
    byte[] body = ("{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"no\","
        + "\"details\":{\"error_code\":\"enforced_spend_limit_reached\"}}}").getBytes(StandardCharsets.UTF_8);
    assertThat(classify(429, Map.of(), body).kind()).isEqualTo(FailureKind.SPEND_LIMIT);
  }

  @Test
  void aPlain429WithoutRetryAfterIsStillARateLimit() {
    assertThat(classify(429, Map.of(), error("rate_limit_error", "Number of requests has exceeded your rate limit")).kind())
        .isEqualTo(FailureKind.RATE_LIMITED);
  }

  @Test
  void xShouldRetryOverridesTheRetryColumn() {
    assertThat(classify(529, Map.of("x-should-retry", "false"), error("overloaded_error", "o")).mayRetrySameTarget())
        .isFalse();
    assertThat(classify(400, Map.of("x-should-retry", "true"), error("invalid_request_error", "x")).mayRetrySameTarget())
        .isTrue();
    assertThat(classify(500, Map.of("x-should-retry", "maybe"), error("api_error", "x")).shouldRetry()).isEmpty();
  }

  @Test
  void aNonAnthropicBodyStillGetsAType() {
    Failure failure = classify(502, Map.of(), "<html>Bad Gateway</html>".getBytes(StandardCharsets.UTF_8));
    assertThat(failure.kind()).isEqualTo(FailureKind.SERVER_ERROR);
    assertThat(failure.errorType()).isEqualTo("api_error");
    assertThat(failure.message()).contains("Bad Gateway");
  }

  @ParameterizedTest(name = "in-band {0} -> {1}")
  @CsvSource({
      "overloaded_error, OVERLOADED",
      "api_error, SERVER_ERROR",
      "invalid_request_error, CLIENT_ERROR",
      "rate_limit_error, CLIENT_ERROR",
      "some_future_error, CLIENT_ERROR"
  })
  void inBandStreamErrorsOnlyOverloadedAndApiErrorsAreRetryable(String type, FailureKind kind) {
    Failure failure = classifier.classifyStreamError("{\"type\":\"error\",\"error\":{\"type\":\"" + type + "\",\"message\":\"m\"}}");
    assertThat(failure.kind()).isEqualTo(kind);
    assertThat(failure.errorType()).isEqualTo(type);
  }

  @Test
  void transportFailuresAreTimeoutsOrConnectionErrors() {
    assertThat(classifier.classifyException(new HttpTimeoutException("t")).kind()).isEqualTo(FailureKind.TIMEOUT);
    assertThat(classifier.classifyException(new ConnectException("refused")).kind()).isEqualTo(FailureKind.CONNECTION);
    assertThat(classifier.classifyException(new IOException("Connection reset")).kind()).isEqualTo(FailureKind.CONNECTION);
  }

  @Test
  void retryAfterMillisWinsOverSeconds() {
    Optional<Duration> wait = RetryAfter.parse(Map.of("retry-after-ms", "1500", "retry-after", "9")::get, InstantSource.system());
    assertThat(wait).contains(Duration.ofMillis(1500));
  }

  @Test
  void retryAfterTakesFractionalSecondsAndHttpDates() {
    InstantSource now = InstantSource.fixed(Instant.parse("2026-11-29T12:00:00Z"));
    assertThat(RetryAfter.parse(Map.of("retry-after", "0.5")::get, now)).contains(Duration.ofMillis(500));
    assertThat(RetryAfter.parse(Map.of("retry-after", "Sun, 29 Nov 2026 12:00:07 GMT")::get, now))
        .contains(Duration.ofSeconds(7));
    assertThat(RetryAfter.parse(Map.of("retry-after", "Sun, 29 Nov 2026 11:00:00 GMT")::get, now))
        .contains(Duration.ZERO);
  }

  @Test
  void unreadableRetryAfterIsIgnored() {
    assertThat(RetryAfter.parse(Map.of("retry-after", "soon")::get, InstantSource.system())).isEmpty();
    assertThat(RetryAfter.parse(Map.of("retry-after", "-3")::get, InstantSource.system())).isEmpty();
    assertThat(RetryAfter.parse(Map.<String, String>of()::get, InstantSource.system())).isEmpty();
  }

  @Test
  void retryAfterSecondsRoundUpAndAreAtLeastOne() {
    assertThat(RetryAfter.seconds(Duration.ofMillis(1))).isEqualTo("1");
    assertThat(RetryAfter.seconds(Duration.ofMillis(2001))).isEqualTo("3");
    assertThat(RetryAfter.seconds(Duration.ZERO)).isEqualTo("1");
  }
}
