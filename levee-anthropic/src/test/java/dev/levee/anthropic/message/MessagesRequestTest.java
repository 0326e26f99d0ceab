package dev.levee.anthropic.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.anthropic.error.RefusalReason;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MessagesRequestTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void rewritingTheModelChangesOnlyTheModelBytes() throws Exception {
    String before = "{ \"temperature\":0.70, \"model\" :\"smart\",\"x-unknown\":{\"deep\":[1e3,-0.0]},"
        + "\"messages\":[{\"role\":\"system\",\"content\":\"h\\u00e9 \\\"q\\\"\"}],\"model_hint\":\"smart\"}\n";
    MessagesRequest request = MessagesRequest.parse(utf8(before));

    byte[] after = request.withModel("claude-opus-4-6");

    assertThat(request.model()).isEqualTo("smart");
    assertThat(new String(after, StandardCharsets.UTF_8))
        .isEqualTo(before.replace("\"model\" :\"smart\"", "\"model\" :\"claude-opus-4-6\""));
  }

  @Test
  void aModelWithEscapesIsReadAndReplacedWhole() throws Exception {
    String before = "{\"model\":\"a\\\"b\\\\c\\u00e9\",\"max_tokens\":5}";
    MessagesRequest request = MessagesRequest.parse(utf8(before));

    assertThat(request.model()).isEqualTo("a\"b\\cé");
    assertThat(new String(request.withModel("x\"y"), StandardCharsets.UTF_8))
        .isEqualTo("{\"model\":\"x\\\"y\",\"max_tokens\":5}");
  }

  @Test
  void nonAsciiBeforeTheModelDoesNotShiftTheSplice() throws Exception {
    String before = "{\"system\":\"日本語 🙂\",\"model\":\"smart\",\"stream\":true}";
    MessagesRequest request = MessagesRequest.parse(utf8(before));

    assertThat(new String(request.withModel("m"), StandardCharsets.UTF_8))
        .isEqualTo("{\"system\":\"日本語 🙂\",\"model\":\"m\",\"stream\":true}");
    assertThat(request.stream()).isTrue();
  }

  @Test
  void theSameModelReturnsTheOriginalBytes() throws Exception {
    byte[] body = utf8("{\"model\":\"m\"}");
    assertThat(MessagesRequest.parse(body).withModel("m")).isSameAs(body);
  }

  @Test
  void aNestedModelKeyIsNotTheModel() throws Exception {
    MessagesRequest request = MessagesRequest.parse(utf8("{\"metadata\":{\"model\":\"inner\"},\"model\":\"outer\"}"));
    assertThat(request.model()).isEqualTo("outer");
    assertThat(new String(request.withModel("new"), StandardCharsets.UTF_8))
        .isEqualTo("{\"metadata\":{\"model\":\"inner\"},\"model\":\"new\"}");
  }

  @Test
  void streamDefaultsToFalse() throws Exception {
    assertThat(MessagesRequest.parse(utf8("{\"model\":\"m\"}")).stream()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "[]", "\"text\"", "{\"model\":\"m\"", "{\"model\":\"m\"} {}", "{model:1}", "{\"model\":\"m\",}"})
  void malformedBodiesAreRefused(String body) {
    assertThatThrownBy(() -> MessagesRequest.parse(utf8(body)))
        .isInstanceOf(MessagesRequest.InvalidRequestException.class);
  }

  @Test
  void aMissingModelIsRefusedWithTheApiWording() {
    assertThatThrownBy(() -> MessagesRequest.parse(utf8("{\"max_tokens\":1}")))
        .hasMessage("model: Field required");
  }

  @Test
  void aModelThatIsNotAStringIsRefused() {
    assertThatThrownBy(() -> MessagesRequest.parse(utf8("{\"model\":42}")))
        .hasMessageContaining("model");
  }

  /** Regression: an integer too large for a long was reported as invalid JSON. */
  @Test
  void aMaxTokensBeyondALongIsRefusedAsAnInteger() throws Exception {
    assertThatThrownBy(() -> MessagesRequest.parse(utf8("{\"model\":\"m\",\"max_tokens\":99999999999999999999}")))
        .hasMessage("max_tokens: Input should be a valid integer, was 99999999999999999999");
    assertThat(MessagesRequest.parse(utf8("{\"model\":\"m\",\"metadata\":{\"n\":99999999999999999999}}")).model())
        .isEqualTo("m");
  }

  @Test
  void aStreamThatIsNotABooleanIsRefused() {
    assertThatThrownBy(() -> MessagesRequest.parse(utf8("{\"model\":\"m\",\"stream\":\"yes\"}")))
        .hasMessageContaining("stream");
  }

  /** Each refusal names its reason as a code, for the access log, which may not quote the body. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      ''                                       | BODY_EMPTY
      [1,2]                                    | BODY_NOT_OBJECT
      {"model":"m",}                           | BODY_NOT_JSON
      {"model":"m"} {}                         | BODY_NOT_JSON
      {"model":"m","model":"n"}                | DUPLICATE_FIELD
      {"max_tokens":16}                        | MISSING_MODEL
      {"model":7}                              | BAD_MODEL
      {"model":" "}                            | BAD_MODEL
      {"model":"m","stream":"yes"}             | BAD_STREAM
      {"model":"m","max_tokens":99999999999999999999} | BAD_MAX_TOKENS
      """)
  void eachRefusalNamesItsReason(String body, RefusalReason reason) {
    assertThatThrownBy(() -> MessagesRequest.parse(utf8(body)))
        .isInstanceOfSatisfying(MessagesRequest.InvalidRequestException.class,
            e -> assertThat(e.reason()).as(e.getMessage()).isEqualTo(reason));
  }

  @Test
  void aBodyNotInUtf8IsNamedSo() {
    assertThatThrownBy(() -> MessagesRequest.parse("{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_16LE)))
        .isInstanceOfSatisfying(MessagesRequest.InvalidRequestException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.BODY_NOT_UTF8));
    assertThatThrownBy(() -> MessagesRequest.parse(new byte[] {'{', '"', 'm', '"', ':', '"', (byte) 0xC3, '"', '}'}))
        .isInstanceOfSatisfying(MessagesRequest.InvalidRequestException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.BODY_NOT_UTF8));
  }

  @Test
  void aTierCapLowersMaxTokensAndDropsThinkingLeavingTheRestByteForByte() throws Exception {
    String before = "{\"model\":\"smart\", \"max_tokens\": 4096,\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":2000},"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}], \"temperature\":0.70}";
    MessagesRequest request = MessagesRequest.parse(utf8(before));

    String after = new String(request.rewrite("haiku", 1024, java.util.Set.of("thinking")), StandardCharsets.UTF_8);

    assertThat(after).isEqualTo("{\"model\":\"haiku\", \"max_tokens\": 1024,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}], \"temperature\":0.70}");
    assertThat(request.maxTokens()).isEqualTo(4096);
  }

  /**
   * The rewritten body is copied once into an array of its exact size: a longer model, a shorter
   * cap and a dropped field around a long prompt, each edit where the body had it.
   */
  @Test
  void everyEditAroundALongPromptLandsWhereItWas() throws Exception {
    String prompt = "the river rose and the levee held. ".repeat(3_000);
    String before = "{\"thinking\":{\"type\":\"enabled\"},\"model\":\"s\",\"messages\":[{\"role\":\"user\",\"content\":\""
        + prompt + "\"}],\"max_tokens\":64000,\"stream\":true}";

    byte[] after = MessagesRequest.parse(utf8(before)).rewrite("claude-opus-4-6", 8192, java.util.Set.of("thinking"));

    String expected = "{\"model\":\"claude-opus-4-6\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt
        + "\"}],\"max_tokens\":8192,\"stream\":true}";
    assertThat(new String(after, StandardCharsets.UTF_8)).isEqualTo(expected);
    assertThat(after).hasSize(utf8(expected).length);
  }

  @Test
  void aCapAboveTheRequestedMaxTokensChangesNothing() throws Exception {
    byte[] body = utf8("{\"model\":\"m\",\"max_tokens\":100}");
    assertThat(MessagesRequest.parse(body).rewrite("m", 1024, java.util.Set.of())).isSameAs(body);
  }

  @Test
  void droppingTheLastOrOnlyFieldKeepsValidJson() throws Exception {
    MessagesRequest last = MessagesRequest.parse(utf8("{\"model\":\"m\" , \"thinking\" : {\"type\":\"adaptive\"} }"));
    assertThat(new String(last.rewrite("m", 0, java.util.Set.of("thinking")), StandardCharsets.UTF_8))
        .isEqualTo("{\"model\":\"m\" }");
    MessagesRequest first = MessagesRequest.parse(utf8("{\"thinking\":{},\"model\":\"m\"}"));
    assertThat(new String(first.rewrite("m", 0, java.util.Set.of("thinking")), StandardCharsets.UTF_8))
        .isEqualTo("{\"model\":\"m\"}");
  }
}
