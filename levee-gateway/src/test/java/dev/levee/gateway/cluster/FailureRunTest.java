package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** When failed Redis commands mean Redis is away: failures in a row that last a span. */
class FailureRunTest {

  private static final long MS = 1_000_000;

  @Test
  void aBurstOfFailuresAtOneMomentIsNotARun() {
    FailureRun run = new FailureRun(3, 100 * MS);
    for (int i = 0; i < 10; i++) {
      assertThat(run.failed(1_000 * MS + i * MS)).as("failure %d of one stall", i).isFalse();
    }
  }

  @Test
  void failuresInARowSpanningTheTimeoutAreARun() {
    FailureRun run = new FailureRun(3, 100 * MS);
    assertThat(run.failed(0)).isFalse();
    assertThat(run.failed(100 * MS)).as("two failures are not enough").isFalse();
    assertThat(run.failed(200 * MS)).isTrue();
  }

  @Test
  void aSuccessEndsTheRun() {
    FailureRun run = new FailureRun(3, 100 * MS);
    run.failed(0);
    run.failed(50 * MS);
    run.succeeded();
    assertThat(run.failed(150 * MS)).as("a new run starts at 150 ms").isFalse();
    assertThat(run.failed(200 * MS)).isFalse();
    assertThat(run.failed(250 * MS)).isTrue();
  }

  @Test
  void rejectsNonsense() {
    assertThatThrownBy(() -> new FailureRun(0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new FailureRun(1, -1)).isInstanceOf(IllegalArgumentException.class);
  }
}
