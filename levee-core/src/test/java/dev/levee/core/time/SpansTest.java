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
    assertThat(Spans.of(Duration.ofMinutes(90))).isEqualTo("1h30m");
  }

  /**
   * 30 days printed as {@code 720h} (server.send-timeout: 30d was reported as 720h): whole days are
   * days now; a span of days and hours stays in hours, and nothing else changes.
   */
  @Test
  void wholeDaysInDays() {
    assertThat(Spans.of(Duration.ofDays(30))).isEqualTo("30d");
    assertThat(Spans.of(Duration.ofDays(1))).isEqualTo("1d");
    assertThat(Spans.of(Duration.ofHours(36))).isEqualTo("36h");
    assertThat(Spans.of(Duration.ofDays(1).plusSeconds(1))).isEqualTo("24h1s");
    assertThat(Spans.of(Duration.ofDays(1).plusMillis(500))).isEqualTo("24h500ms");
    assertThat(Spans.of(Duration.ofDays(-2))).isEqualTo("-2d");
  }

  @Test
  void millisecondsWhenTheSpanIsNotWholeSeconds() {
    assertThat(Spans.of(Duration.ofMillis(250))).isEqualTo("250ms");
    assertThat(Spans.of(Duration.ofMillis(500))).isEqualTo("500ms");
    assertThat(Spans.of(Duration.ofMillis(1500))).isEqualTo("1s500ms");
  }

  @Test
  void zeroAndNegativeAndSubMillisecond() {
    assertThat(Spans.of(Duration.ZERO)).isEqualTo("0s");
    assertThat(Spans.of(Duration.ofNanos(999_999))).isEqualTo("0s");
    assertThat(Spans.of(Duration.ofSeconds(-5))).isEqualTo("-5s");
  }
}
