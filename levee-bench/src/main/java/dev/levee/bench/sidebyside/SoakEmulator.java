package dev.levee.bench.sidebyside;

import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;

/**
 * The upstream of {@link Soak}, in its own JVM: the fault-injecting emulator ({@code levee-emulator})
 * with its default options — lenient (any model name, any {@code anthropic-version}), 20 ms to the
 * first token, 2 ms between deltas — whose faults the soak's aliases choose by model name ({@code
 * emu-529}, {@code emu-503}, {@code emu-cut-4}). Prints {@code EMULATOR <base url>} once listening;
 * stops when its standard input closes.
 */
public final class SoakEmulator {

  private SoakEmulator() {}

  public static void main(String[] args) throws Exception {
    try (Emulator emulator = Emulator.start(EmulatorOptions.defaults())) {
      System.out.println("EMULATOR " + emulator.baseUrl());
      System.out.flush();
      while (System.in.read() >= 0) {
        // wait for the parent to close our input
      }
    }
  }
}
