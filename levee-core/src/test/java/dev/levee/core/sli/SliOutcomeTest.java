package dev.levee.core.sli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.retry.FailureKind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How each failure kind counts in the SLI window. */
class SliOutcomeTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(nullValues = "none", value = {
    "RATE_LIMITED, RATE_LIMITED",
    "SPEND_LIMIT,  RATE_LIMITED",
    "OVERLOADED,   SERVER_ERROR",
    "SERVER_ERROR, SERVER_ERROR",
    "TIMEOUT,      SERVER_ERROR",
    "CONNECTION,   SERVER_ERROR",
    "CREDENTIALS,  SERVER_ERROR",
    "CLIENT_ERROR, CLIENT_ERROR",
    "CANCELLED,    none",
  })
  void eachFailureKindMapsToOneOutcome(FailureKind kind, SliOutcome expected) {
    assertThat(SliOutcome.of(kind)).isEqualTo(expected);
  }
}
