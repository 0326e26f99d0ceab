package dev.levee.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Regression (session 12 review): {@code levee emulator} answered 200 to a request without {@code
 * anthropic-version} and to any model name ({@code claude-sonet-4-5}, a typo), where the API
 * answers 400 and 404: a client or a config tried against it passed, then failed against the API.
 * The command now runs the emulator faithful ({@link EmulatorOptions#faithful()}), names more
 * models with {@code --model}, and {@code --lenient} gives the old behaviour.
 */
class EmulatorFaithfulByDefaultRegressionTest {

  private static EmulatorOptions options(String... args) {
    EmulatorCommand command = new EmulatorCommand();
    new CommandLine(command).parseArgs(args);
    return command.options().build();
  }

  @Test
  void theEmulatorCommandIsFaithfulUnlessToldToBeLenient() {
    assertThat(options().faithful()).isTrue();
    assertThat(options("--model", "claude-main", "--model", "my-model").models())
        .containsExactlyInAnyOrder("claude-main", "my-model");
    assertThat(options("--lenient").faithful()).isFalse();
    assertThat(EmulatorOptions.defaults().faithful()).as("embedded in tests: any name").isFalse();
  }

  /** Session 23's newcomer trial: a stalled stream's ping interval could be set only from Java. */
  @Test
  void thePingIntervalOfAStallIsAFlag() {
    assertThat(options().pingInterval()).isEqualTo(EmulatorOptions.defaults().pingInterval());
    assertThat(options("--ping-interval", "0.01ms").pingInterval()).isEqualTo(java.time.Duration.ofNanos(10_000));
    assertThat(options("--ping-interval", "0").pingInterval()).isZero();
  }
}
