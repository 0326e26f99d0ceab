package dev.levee.anthropic.error;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClientTextTest {

  @Test
  void aShortValueIsShownAsSentWithControlCharactersAsSpaces() {
    assertThat(ClientText.shown("text/plain")).isEqualTo("text/plain");
    assertThat(ClientText.shown("a\r\nb\u0000c")).isEqualTo("a  b c");
  }

  @Test
  void aLongValueIsCutToItsFirstHundredCharacters() {
    assertThat(ClientText.shown("x".repeat(ClientText.SHOWN))).isEqualTo("x".repeat(ClientText.SHOWN));
    assertThat(ClientText.shown("9".repeat(10_000))).isEqualTo("9".repeat(ClientText.SHOWN) + "...");
  }

  @Test
  void theCutNeverSplitsASurrogatePair() {
    String value = "a".repeat(ClientText.SHOWN - 1) + "\uD83D\uDE00" + "tail";

    assertThat(ClientText.shown(value)).isEqualTo("a".repeat(ClientText.SHOWN - 1) + "...");
  }
}
