package dev.levee.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CapacityUpstreamTest {

  private static int served(CapacityUpstream upstream, double second, int calls) {
    int ok = 0;
    for (int i = 0; i < calls; i++) {
      if (upstream.call(second + i / (double) (calls + 1))) ok++;
    }
    return ok;
  }

  @Test
  void servesTheFirstCapacityCallsOfEachSecondAndRejectsTheRest() {
    CapacityUpstream upstream = new CapacityUpstream(10, 10, 0, 0, 0);

    assertThat(served(upstream, 0, 25)).isEqualTo(10);
    assertThat(served(upstream, 1, 7)).isEqualTo(7);
  }

  @Test
  void duringTheTriggerCapacityDrops() {
    CapacityUpstream upstream = new CapacityUpstream(10, 4, 5, 8, 0);

    assertThat(served(upstream, 4, 10)).isEqualTo(10);
    assertThat(served(upstream, 5, 10)).isEqualTo(4);
    assertThat(served(upstream, 8, 10)).isEqualTo(10);
  }

  @Test
  void rejectionsCostTheNextSecondSomeCapacity() {
    CapacityUpstream upstream = new CapacityUpstream(10, 10, 0, 0, 0.5);

    assertThat(served(upstream, 0, 20)).isEqualTo(10); // 10 rejected
    assertThat(served(upstream, 1, 20)).as("10 − 0.5 · 10").isEqualTo(5); // 15 rejected
    assertThat(served(upstream, 2, 20)).as("10 − 0.5 · 15").isEqualTo(2);
    assertThat(served(upstream, 4, 20)).as("an idle second in between clears the debt").isEqualTo(10);
  }
}
