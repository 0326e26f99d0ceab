package dev.levee.anthropic.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Regression (session 15, hostile clients): ill-formed UTF-8 inside a string the parser skips (a
 * message's {@code content}: most of a body) was not seen at all, and an overlong form or an
 * encoded surrogate where it decodes passed too, so the body was forwarded for the upstream to
 * read otherwise; a bad byte the parser did meet gave its own words, without where. Every such
 * body is now the client's 400, naming the byte offset of the first bad sequence.
 */
class MalformedUtf8BodyRegressionTest {

  private static final String HEAD = "{\"model\":\"smart\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"";

  @ParameterizedTest(name = "{0}")
  @CsvSource({
      "invalid byte, ff, 1 (0xFF)",
      "overlong slash, c0af, (0xC0 0xAF)",
      "overlong three bytes, e080af, (0xE0 0x80 0xAF)",
      "lone high surrogate, eda080, (0xED 0xA0 0x80)",
      "lone low surrogate, edb080, (0xED 0xB0 0x80)",
      "truncated by a letter, e282, (0xE2 0x82 0x63)",
      "stray continuation, 80, (0x80)",
  })
  void aBadSequenceInASkippedStringIsRefusedAtItsOffset(String what, String hex, String shown) {
    byte[] body = body("ab", HexFormat.of().parseHex(hex), "cd\"}]}");
    int offset = HEAD.length() + 2;

    assertThatThrownBy(() -> MessagesRequest.parse(body)).as(what)
        .isInstanceOf(MessagesRequest.InvalidRequestException.class)
        .hasMessageStartingWith("request body is not valid UTF-8: the ")
        .hasMessageContaining("at offset " + offset + " ")
        .hasMessageContaining(shown.startsWith("1 ") ? shown.substring(2) : shown);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"in the model, 0", "at the very start, -1"})
  void aBadByteWhereTheParserReadsIsNamedByOffsetToo(String what, int at) {
    byte[] body = at < 0 ? HexFormat.of().parseHex("c0af7b7d")
        : "{\"model\":\"sm\u00c0\u00afrt\"}".getBytes(StandardCharsets.ISO_8859_1);
    int offset = at < 0 ? 0 : 12;

    assertThatThrownBy(() -> MessagesRequest.parse(body)).as(what)
        .isInstanceOf(MessagesRequest.InvalidRequestException.class)
        .hasMessageStartingWith("request body is not valid UTF-8: the bytes at offset " + offset + " (0xC0 0xAF)");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"end of body, e282", "end of body after a word, 4142434445464748f09f98"})
  void aBodyCutInsideACharacterSaysSo(String what, String hex) {
    byte[] tail = HexFormat.of().parseHex(hex);
    byte[] body = body("", tail, "");

    assertThatThrownBy(() -> MessagesRequest.parse(body)).as(what)
        .hasMessageStartingWith("request body is not valid UTF-8")
        .hasMessageContaining("the body ends inside it");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"euro, e282ac", "emoji, f09f9880", "last before the surrogates, ed9fbf", "U+10FFFF, f48fbfbf"})
  void wellFormedCharactersStillPass(String what, String hex) throws Exception {
    byte[] body = body("x", HexFormat.of().parseHex(hex), "y\"}]}");

    assertThat(MessagesRequest.parse(body).model()).as(what).isEqualTo("smart");
  }

  private static byte[] body(String before, byte[] bad, String after) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes((HEAD + before).getBytes(StandardCharsets.UTF_8));
    out.writeBytes(bad);
    out.writeBytes(after.getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }
}
