package dev.levee.anthropic.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PrefillSupportTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "claude-opus-4-6, false",
      "claude-sonnet-4-6-20260115, false",
      "claude-opus-4-7, false",
      "claude-sonnet-5, false",
      "claude-haiku-5-1, false",
      "claude-sonnet-4-5-20250929, true",
      "claude-opus-4-1-20250805, true",
      "claude-opus-4-20250514, true",
      "claude-3-7-sonnet-latest, true",
      "claude-3-5-haiku-20241022, true",
      "emu-ok, true",
      "emu-cut-5-noprefill, false",
      "some-other-model, true",
      "claude-opus-4.6, false",
      "Claude-Opus-4-6, false",
      "anthropic.claude-opus-4-6-v1:0, false",
      "emu-cut-5-noprefill-always, false",
      "EMU-OK-NOPREFILL, false",
  })
  void defaultsFollowTheModelFamily(String model, boolean prefill) {
    assertThat(PrefillSupport.byDefault(model)).isEqualTo(prefill);
  }
}
