package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AttemptMemoryTest {

  private final AttemptMemory memory = new AttemptMemory();

  @Test
  void onlyTheFirstAttemptOfAConversationIsFirst() {
    assertThat(memory.firstAttempt("emu-cut-5", "a")).isTrue();
    assertThat(memory.firstAttempt("emu-cut-5", "a")).isFalse();
    assertThat(memory.firstAttempt("emu-cut-6", "a")).isTrue();
  }

  /** Regression (issue 9, item 4): every conversation a client invented was remembered forever. */
  @Test
  void theMemoryIsBoundedAndForgetsTheLeastRecentlyAttempted() {
    memory.firstAttempt("emu-cut-5", "kept");
    for (int i = 0; i < AttemptMemory.MAX_CONVERSATIONS + 10; i++) {
      if (i % 1000 == 0) {
        memory.firstAttempt("emu-cut-5", "kept"); // attempted again: recently used
      }
      memory.firstAttempt("emu-cut-5", "invented " + i);
    }

    assertThat(memory.size()).isEqualTo(AttemptMemory.MAX_CONVERSATIONS);
    assertThat(memory.firstAttempt("emu-cut-5", "kept")).isFalse();
    assertThat(memory.firstAttempt("emu-cut-5", "invented 0")).isTrue(); // forgotten, so first again
  }
}
