package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.stream.PrefillSupport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What a model name asks for: a fault, and whether prefill is refused. */
class ModelNamesTest {

  @ParameterizedTest
  @CsvSource({
      "claude-sonnet-4-5, OK, 0, false",
      "gpt-whatever, OK, 0, false",
      "emu-ok, OK, 0, false",
      "emu-529, OVERLOADED, 0, false",
      "emu-429-ra2, RATE_LIMITED, 2, false",
      "emu-429-ra10, RATE_LIMITED, 10, false",
      "emu-500-once, SERVER_ERROR_ONCE, 0, false",
      "emu-503, UNAVAILABLE, 0, false",
      "emu-hang, HANG, 0, false",
      "emu-reset, RESET, 0, false",
      "emu-400, BAD_REQUEST, 0, false",
      "emu-slow-ttft-1500, SLOW_TTFT, 1500, false",
      "emu-cut-5, CUT, 5, false",
      "emu-cut-5-noprefill, CUT, 5, false",
      "emu-cut-5-always-noprefill, CUT, 5, true",
      "emu-cut-5-noprefill-always, CUT, 5, true",
      "emu-error-0, ERROR_EVENT, 0, false",
      "emu-stall-20, STALL, 20, false",
      "emu-malformed-3, MALFORMED, 3, false",
      "emu-dup, DUP, 0, false",
  })
  void faultNamesParse(String model, FaultSpec.Kind kind, int n, boolean always) {
    assertThat(FaultSpec.of(model)).contains(new FaultSpec(kind, n, always));
  }

  @ParameterizedTest
  @CsvSource({"emu-", "emu-cut", "emu-cut-", "emu-cut-x", "emu-529x", "emu-429-ra", "emu-slow-ttft"})
  void unknownEmuNamesAreUnknownModels(String model) {
    assertThat(FaultSpec.of(model)).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({
      "claude-opus-4-6, true",
      "claude-sonnet-4-6, true",
      "claude-opus-4-7, true",
      "claude-sonnet-5, true",
      "claude-opus-5-1-20270101, true",
      "anthropic.claude-opus-4-6-v1:0, true",
      "emu-ok-noprefill, true",
      "emu-cut-5-noprefill-always, true",
      "claude-sonnet-4-5, false",
      "claude-sonnet-4-5-20250929, false",
      "claude-sonnet-4-20250514, false",
      "claude-opus-4-1-20250805, false",
      "claude-3-5-sonnet-20241022, false",
      "claude-3-haiku-20240307, false",
      "emu-ok, false",
      "emu-cut-5, false",
  })
  void prefillIsRefusedByNoprefillNamesAndClaude46AndLater(String model, boolean refused) {
    assertThat(PrefillSupport.byDefault(model)).isEqualTo(!refused);
  }
}
