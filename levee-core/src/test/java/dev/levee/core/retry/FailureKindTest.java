package dev.levee.core.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** DESIGN.md's failure taxonomy table, row by row, and the {@code x-should-retry} override. */
class FailureKindTest {

  @ParameterizedTest(name = "{0}: retry {1}, next {2}, breaker {3}, final {4}")
  @CsvSource({
    // kind,       retry same, next target, breaker, surfaces at once
    "RATE_LIMITED, true,  true,  true,  false",
    "OVERLOADED,   true,  true,  true,  false",
    "SERVER_ERROR, true,  true,  true,  false",
    "TIMEOUT,      true,  true,  true,  false",
    "CONNECTION,   true,  true,  true,  false",
    "CLIENT_ERROR, false, false, false, true",
    "CREDENTIALS,  false, true,  true,  false",
    "SPEND_LIMIT,  false, true,  true,  false",
    "CANCELLED,    false, false, false, true",
  })
  void eachKindFollowsTheTaxonomyTable(
      FailureKind kind, boolean retrySame, boolean nextTarget, boolean breaker, boolean isFinal) {
    assertThat(kind.retrySameTarget()).as("retry same target").isEqualTo(retrySame);
    assertThat(kind.tryNextTarget()).as("next target").isEqualTo(nextTarget);
    assertThat(kind.countsForBreaker()).as("counts for breaker").isEqualTo(breaker);
    assertThat(kind.isFinal()).as("final").isEqualTo(isFinal);
  }

  @ParameterizedTest
  @EnumSource(FailureKind.class)
  void withoutXShouldRetryTheKindDecidesTheRetry(FailureKind kind) {
    Failure failure = Failure.of(kind, 0, "x", "m");

    assertThat(failure.mayRetrySameTarget()).isEqualTo(kind.retrySameTarget());
  }

  @ParameterizedTest
  @EnumSource(value = FailureKind.class, mode = EnumSource.Mode.EXCLUDE, names = "CANCELLED")
  void xShouldRetryTrueAllowsARetryOfAnyKindButCancelled(FailureKind kind) {
    assertThat(withShouldRetry(kind, true).mayRetrySameTarget()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(FailureKind.class)
  void xShouldRetryFalseForbidsARetryOfAnyKind(FailureKind kind) {
    assertThat(withShouldRetry(kind, false).mayRetrySameTarget()).isFalse();
  }

  @Test
  void aCancelledCallIsNeverRetriedWhateverTheUpstreamSays() {
    assertThat(withShouldRetry(FailureKind.CANCELLED, true).mayRetrySameTarget()).isFalse();
  }

  @Test
  void aFailureDescribesItselfWithoutAStatusWhenNoResponseArrived() {
    assertThat(Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded"))
        .hasToString("OVERLOADED 529 overloaded_error: Overloaded");
    assertThat(Failure.of(FailureKind.TIMEOUT, 0, "timeout", "no answer in 20 s"))
        .hasToString("TIMEOUT timeout: no answer in 20 s");
  }

  private static Failure withShouldRetry(FailureKind kind, boolean shouldRetry) {
    return new Failure(kind, 0, "x", "m", Optional.of(Duration.ofSeconds(1)), Optional.of(shouldRetry));
  }
}
