package dev.levee.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class Mulberry32Test {

  @Test
  void drawsTheSameSequenceAsTheJavaScriptOriginal() {
    // Reference: mulberry32(20260921)() * 2^32 in Node.js.
    Mulberry32 random = new Mulberry32(20260921);

    assertThat(random.nextDouble()).isEqualTo(211406713 / 4294967296.0);
    assertThat(random.nextDouble()).isEqualTo(874542403 / 4294967296.0);
    assertThat(random.nextDouble()).isEqualTo(2829756054L / 4294967296.0);
    assertThat(random.nextDouble()).isEqualTo(149516536 / 4294967296.0);
  }

  @Test
  void seedZeroIsAnOrdinarySeed() {
    assertThat(new Mulberry32(0).nextInt() & 0xFFFF_FFFFL).isEqualTo(1144304738L);
  }

  @Test
  void doublesStayInTheUnitInterval() {
    Mulberry32 random = new Mulberry32(7);
    for (int i = 0; i < 100_000; i++) {
      assertThat(random.nextDouble()).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
    }
  }
}
