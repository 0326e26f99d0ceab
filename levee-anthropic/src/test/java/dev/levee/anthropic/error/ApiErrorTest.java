package dev.levee.anthropic.error;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ApiErrorTest {

  @ParameterizedTest(name = "{0} {1} {2} -> {3} {4}")
  @CsvSource({
      "OVERLOADED, 529, overloaded_error, 529, overloaded_error",
      "RATE_LIMITED, 429, rate_limit_error, 429, rate_limit_error",
      "CLIENT_ERROR, 400, invalid_request_error, 400, invalid_request_error",
      "OVERLOADED, 200, overloaded_error, 529, overloaded_error",
      "CLIENT_ERROR, 200, invalid_request_error, 400, invalid_request_error",
      "CLIENT_ERROR, 200, some_future_error, 400, some_future_error",
      "SERVER_ERROR, 200, malformed_event, 502, api_error",
      "TIMEOUT, 0, stream_stalled, 504, timeout_error",
      "TIMEOUT, 0, timeout, 504, timeout_error",
      "CONNECTION, 0, stream_cut, 502, api_error",
      "CONNECTION, 0, connection_error, 502, api_error",
  })
  void aFailureBecomesTheErrorTheClientSees(FailureKind kind, int status, String type, int expectedStatus,
      String expectedType) {
    ApiError error = ApiError.of(Failure.of(kind, status, type, "m"), "said");

    assertThat(error.status()).isEqualTo(expectedStatus);
    assertThat(error.type()).isEqualTo(expectedType);
    assertThat(error.message()).isEqualTo("said");
  }
}
