package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): under load a Redis slower than the 30 ms command timeout switched
 * the link 17 times in 25 s, each switch a WARN line.
 */
class SwitchLinesTest {

  private final ManualClock clock = new ManualClock();
  private final SwitchLines lines = new SwitchLines(clock, 3);

  @Test
  void aFlappingLinkLogsThreeLinesAMinuteThenOneSummary() {
    long switches = 0;
    assertThat(lines.due(true, switches)).isEqualTo(""); // the start
    int logged = 0;
    for (int i = 0; i < 17; i++) {
      clock.advance(Duration.ofMillis(1500));
      if (lines.due(true, ++switches) != null) {
        logged++;
      }
      assertThat(lines.due(false, switches)).isNull(); // the probe: nothing due inside the minute
    }
    assertThat(logged).isEqualTo(2);

    clock.advance(Duration.ofSeconds(35));

    assertThat(lines.due(false, switches)).isEqualTo(" (15 switches since the last line)");
    assertThat(lines.due(false, switches)).isNull();
  }

  @Test
  void aRealOutageAndItsEndAreLoggedAtOnceAfterTheStart() {
    assertThat(lines.due(true, 0)).isEqualTo("");
    clock.advance(Duration.ofSeconds(5));
    assertThat(lines.due(true, 1)).isEqualTo("");
    clock.advance(Duration.ofSeconds(5));
    assertThat(lines.due(true, 2)).isEqualTo("");
  }
}
