package dev.levee.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which byte sequences are UTF-8, and where the first that is not begins. */
class Utf8Test {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "'', -1",
      "7b7d, -1",
      "c2a9, -1", // ©
      "e282ac, -1", // €
      "efbbbf7b7d, -1", // a BOM, then {}
      "ed9fbf, -1", // U+D7FF, the last before the surrogates
      "ee8080, -1", // U+E000, the first after them
      "f0908080, -1", // U+10000
      "f48fbfbf, -1", // U+10FFFF
      "4142434445464748c0, 8", // after a full ASCII word
      "41c080, 1", // overlong NUL
      "41c1bf, 1", // overlong, C1
      "e08080, 0", // overlong, three bytes
      "e09fbf, 0", // overlong, U+07FF in three
      "f08fbfbf, 0", // overlong, U+FFFF in four
      "eda080, 0", // lone high surrogate U+D800
      "edbfbf, 0", // lone low surrogate U+DFFF
      "eda0bdedb880, 0", // a surrogate pair encoded as two (CESU-8)
      "f4908080, 0", // U+110000
      "f5808080, 0", // never a lead byte
      "ff, 0",
      "4180, 1", // a stray continuation byte
      "41e282, 1", // cut by the end
      "41e28241, 1", // cut by an ASCII byte
      "41f09080, 1", // four-byte sequence cut by the end
      "c2, 0",
      "c2a941414141414141e2, 9", // the bad byte past a fast word
  })
  void findsTheFirstIllFormedSequence(String hex, int expected) {
    byte[] bytes = HexFormat.of().parseHex(hex);

    assertThat(Utf8.firstMalformed(bytes, 0, bytes.length)).isEqualTo(expected);
  }

  @Test
  void scansOnlyTheRangeAndReportsOffsetsInTheArray() {
    byte[] bytes = HexFormat.of().parseHex("ff414243e282ac44ff");

    assertThat(Utf8.firstMalformed(bytes, 1, 7)).as("the bad bytes are outside").isEqualTo(-1);
    assertThat(Utf8.firstMalformed(bytes, 1, 8)).isEqualTo(8);
    assertThat(Utf8.firstMalformed(bytes, 1, 5)).as("the range cuts the euro sign").isEqualTo(4);
  }

  @Test
  void agreesWithTheJdksStrictDecoderOnRandomBytes() {
    SplittableRandom random = new SplittableRandom(42);
    byte[] alphabet = HexFormat.of().parseHex("41007f80bfc0c1c2dfe0e1ecedeef0f1f3f4f5ff8f909fa0");
    for (int run = 0; run < 20_000; run++) {
      byte[] bytes = new byte[random.nextInt(1, 24)];
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = random.nextInt(3) == 0 ? (byte) random.nextInt(256) : alphabet[random.nextInt(alphabet.length)];
      }
      int offset = Utf8.firstMalformed(bytes, 0, bytes.length);
      assertThat(offset >= 0).as(HexFormat.of().formatHex(bytes)).isEqualTo(!decodes(bytes, bytes.length));
      if (offset >= 0) {
        assertThat(decodes(bytes, offset)).as("all before %d is UTF-8: %s", offset, HexFormat.of().formatHex(bytes))
            .isTrue();
      }
    }
  }

  @Test
  void theRefusalNamesTheOffsetAndTheBytes() {
    byte[] body = "{\"a\":\"x\u00ed\u00a0\u0080\"}".getBytes(StandardCharsets.ISO_8859_1); // ED A0 80 at 7

    assertThat(Utf8.refusal(body, Utf8.firstMalformed(body, 0, body.length))).isEqualTo("request body is not valid"
        + " UTF-8: the bytes at offset 7 (0xED 0xA0 0x80) are not a UTF-8 character; JSON must be sent as UTF-8"
        + " (RFC 8259 section 8.1)");
    byte[] cut = HexFormat.of().parseHex("7be282");
    assertThat(Utf8.refusal(cut, 1)).contains("the bytes at offset 1 (0xE2 0x82)").contains("the body ends inside it");
    assertThat(Utf8.refusal(HexFormat.of().parseHex("80"), 0)).contains("the byte at offset 0 (0x80) is not");
  }

  private static boolean decodes(byte[] bytes, int length) {
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, 0, length));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
