package dev.levee.emulator;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;

/**
 * A test against a fresh emulator that answers at once (no time to first token, no delay between
 * deltas), reached through {@link #wire}; the emulator stops after each test.
 */
abstract class InstantEmulatorTest {

  final Emulator emulator = Emulator.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO)
      .deltaDelay(Duration.ZERO).build());
  final Wire wire = new Wire(emulator);

  @AfterEach
  void stopEmulator() {
    emulator.close();
  }
}
