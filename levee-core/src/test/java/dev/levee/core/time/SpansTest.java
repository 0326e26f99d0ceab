package dev.levee.core.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SpansTest {

  @Test
  void wholeUnitsFromHoursDownToSeconds() {
    assertThat(Spans.of(Duration.ofSeconds(30))).isEqualTo("30s");
    assertThat(Spans.of(Duration.ofSeconds(90))).isEqualTo("1m30s");
    assertThat(Spans.of(Duration.ofHours(2))).isEqualTo("2h");
    assertThat(Spans.of(Duration.ofSeconds(3661))).isEqualTo("1h1m1s");
  }

  @Test
  void millisecondsWhenTheSpanIsNotWholeSeconds() {
    assertThat(Spans.of(Duration.ofMillis(250))).isEqualTo("250ms");
    assertThat(Spans.of(Duration.ofMillis(1500))).isEqualTo("1s500ms");
  }

  @Test
  void zeroAndNegativeAndSubMillisecond() {
    assertThat(Spans.of(Duration.ZERO)).isEqualTo("0s");
    assertThat(Spans.of(Duration.ofNanos(999_999))).isEqualTo("0s");
    assertThat(Spans.of(Duration.ofSeconds(-5))).isEqualTo("-5s");
  }
}
