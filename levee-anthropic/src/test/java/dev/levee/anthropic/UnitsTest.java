package dev.levee.anthropic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.time.Spans;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class UnitsTest {

  @ParameterizedTest(name = "{0} = {1} ms")
  @CsvSource({"500ms, 500", "30s, 30000", "1.5s, 1500", "2m, 120000", "1h, 3600000", "29d, 2505600000", "0.5d, 43200000", "' 10 s ', 10000", "0.25ms, 0.25",
      "1h30m, 5400000", "1s500ms, 1500", "1d12h, 129600000", "1m0.5s, 60500"})
  void durationsNeedAUnit(String text, double millis) {
    assertThat(Units.duration(text)).isEqualTo(Duration.ofNanos(Math.round(millis * 1_000_000)));
    assertThat(Units.durationOrSeconds(text)).isEqualTo(Units.duration(text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"30", "", "1w", "s", "1.s", "ten seconds", "--1s", "1h30", "1h 30m", "h30m"})
  void otherDurationsAreRefused(String text) {
    assertThatThrownBy(() -> Units.duration(text))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected a duration");
  }

  /**
   * Newcomer trial: {@code 30m1h} read as 1 h 30 min and {@code 1h1h} as 2 h, and {@code 1h30} was
   * refused without saying which part was wrong.
   */
  @ParameterizedTest
  @ValueSource(strings = {"30m1h", "1h1h", "500ms1s", "1s1s", "1m1d"})
  void unitsGoLargestFirstEachOnce(String text) {
    assertThatThrownBy(() -> Units.duration(text)).hasMessage(
        "expected a duration such as 500ms, 30s, 2m, 1h, 7d or 1h30m, got '" + text + "': units go largest first, each once");
  }

  @Test
  void aLastNumberWithoutItsUnitIsNamed() {
    assertThatThrownBy(() -> Units.duration("1h30")).hasMessage(
        "expected a duration such as 500ms, 30s, 2m, 1h, 7d or 1h30m, got '1h30': its last number has no unit");
    assertThatThrownBy(() -> Units.duration("soon")).hasMessage(
        "expected a duration such as 500ms, 30s, 2m, 1h, 7d or 1h30m, got 'soon'");
  }

  /**
   * What Levee prints ({@link Spans#of}, in its log lines and config errors) reads back as the same
   * duration, so it can be pasted into a config: 90 minutes is printed {@code 1h30m}, which no key
   * took (a duration was one number and one unit), and 30 days {@code 30d}, no longer {@code 720h}
   * (to the millisecond: {@code Spans} drops the rest).
   */
  @ParameterizedTest
  @ValueSource(strings = {"30d", "1d", "36h", "90m", "1h30m", "500ms", "0s", "1.5s", "25h1s", "2h500ms"})
  void whatLeveePrintsReadsBackAsTheSameDuration(String text) {
    Duration duration = Units.duration(text);

    assertThat(Units.duration(Spans.of(duration))).as("%s, printed %s", text, Spans.of(duration)).isEqualTo(duration);
    assertThat(Units.durationOrSeconds(Spans.of(duration))).isEqualTo(duration);
  }

  /** Newcomer trial: "-1s" was refused as if it were not a duration at all ("expected a duration such as …"). */
  @ParameterizedTest
  @ValueSource(strings = {"-1s", " -500ms", "-0.5h"})
  void aNegativeDurationIsRefusedAsNegative(String text) {
    assertThatThrownBy(() -> Units.duration(text))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("a duration cannot be negative, got '" + text + "'");
    assertThatThrownBy(() -> Units.durationOrSeconds("-30")).hasMessage("a duration cannot be negative, got '-30'");
  }

  @ParameterizedTest(name = "{0} = {1} s")
  @CsvSource({"30, 30", "2.5, 2.5"})
  void aBareNumberIsSecondsWhereAllowed(String text, double seconds) {
    assertThat(Units.durationOrSeconds(text)).isEqualTo(Duration.ofNanos(Math.round(seconds * 1e9)));
  }

  @ParameterizedTest(name = "{0} = {1} B")
  @CsvSource({"1048576, 1048576", "32MiB, 33554432", "512KB, 512000", "1 GiB, 1073741824", "7B, 7"})
  void sizes(String text, long bytes) {
    assertThat(Units.bytes(text)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "1.5MiB", "-1", "12 TB", "lots"})
  void otherSizesAreRefused(String text) {
    assertThatThrownBy(() -> Units.bytes(text)).isInstanceOf(IllegalArgumentException.class);
  }
}
