package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.error.ApiError;
import java.util.Optional;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which {@code content-type} headers a request body may come with: one line, one type, JSON. */
class JsonContentTypeTest {

  @ParameterizedTest
  @ValueSource(strings = {"application/json", "Application/JSON; charset=utf-8", "application/json; note=\"a, b\""})
  void oneJsonTypePasses(String value) {
    assertThat(JsonContentType.check(HttpFields.build().add(HttpHeader.CONTENT_TYPE, value))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"application/json, text/plain", "text/plain, application/json",
      "application/json; charset=utf-8, text/plain", "application/json,", "application/json; a=\"x\\\"\", b"})
  void aValueThatJoinsTypesWithACommaIsRefused(String value) {
    Optional<ApiError> refused = JsonContentType.check(HttpFields.build().add(HttpHeader.CONTENT_TYPE, value));

    assertThat(refused).isPresent();
    assertThat(refused.get().status()).isEqualTo(400);
    assertThat(refused.get().type()).isEqualTo("invalid_request_error");
    assertThat(refused.get().message()).contains("names more than one media type");
  }

  @Test
  void twoContentTypeLinesAreRefusedEvenWhenBothSayJson() {
    for (String second : new String[] {"text/plain", "application/json"}) {
      Optional<ApiError> refused = JsonContentType.check(HttpFields.build()
          .add(HttpHeader.CONTENT_TYPE, "application/json").add(HttpHeader.CONTENT_TYPE, second));

      assertThat(refused).as(second).isPresent();
      assertThat(refused.get().status()).isEqualTo(400);
      assertThat(refused.get().message()).isEqualTo("The request has 2 content-type headers; send exactly one,"
          + " content-type: application/json (RFC 9110 section 8.3).");
    }
  }

  @Test
  void noContentTypeIsStillRefused() {
    assertThat(JsonContentType.check(HttpFields.build()).orElseThrow().message()).contains("no content-type header");
  }
}
