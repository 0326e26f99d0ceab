package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.error.ApiError;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which model names and tenant names a client may choose ({@link ClientNames}), and the safe header value. */
class ClientNamesTest {

  @ParameterizedTest
  @ValueSource(strings = {"claude-sonnet-4-5-20250929", "claude-3-haiku", "anthropic.claude-3-5-sonnet-20240620-v1:0",
      "us.anthropic.claude-3-5-sonnet-20240620-v1:0", "claude-3-5-sonnet@20240620", "claude-3-5-sonnet-v2@20241022",
      "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-7-sonnet-20250219-v1:0"})
  void modelIdsOfTheApiBedrockAndVertexAreAccepted(String model) {
    assertThat(ClientNames.model(model)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "emu/fast\r\nx-evil: 1", "claude sonnet", "claude-\t3", "claude-\u00e9", "a{b}", "\u0000"})
  void namesThatWouldBreakAHeadOrAKeyAreRefusedNamingTheModelField(String model) {
    ApiError error = ClientNames.model(model).orElseThrow();
    assertThat(error.status()).isEqualTo(400);
    assertThat(error.type()).isEqualTo("invalid_request_error");
    assertThat(error.message()).startsWith("model: ").doesNotContain("\r", "\n", "x-evil");
  }

  @Test
  void aModelNameIsAtMost256Characters() {
    assertThat(ClientNames.model("c".repeat(ClientNames.MAX_MODEL))).isEmpty();
    assertThat(ClientNames.model("c".repeat(100_000)).orElseThrow().message())
        .startsWith("model: ").endsWith("got 100000 characters").hasSizeLessThan(300);
  }

  @Test
  void aTenantNameIsAPlainNameOfAtMost128CharactersAndAbsenceIsFine() {
    assertThat(ClientNames.tenant(null)).isEmpty();
    assertThat(ClientNames.tenant("team-a/eu_1")).isEmpty();
    assertThat(ClientNames.tenant("t".repeat(ClientNames.MAX_TENANT + 1)).orElseThrow().message())
        .startsWith("x-levee-tenant: ").endsWith("got 129 characters");
    assertThat(ClientNames.tenant("a}b")).isPresent();
  }

  @Test
  void aHeaderValueLeveeSetsHasNoControlCharacterAndABoundedLength() {
    assertThat(Responder.headerValue("emu/a: 529 overloaded_error (1 call)")).isEqualTo("emu/a: 529 overloaded_error (1 call)");
    assertThat(Responder.headerValue("a\r\nx-evil: 1")).isEqualTo("a  x-evil: 1");
    String cut = Responder.headerValue("x".repeat(100_000));
    assertThat(cut).hasSize(Responder.MAX_HEADER_VALUE).endsWith("...");
  }
}
