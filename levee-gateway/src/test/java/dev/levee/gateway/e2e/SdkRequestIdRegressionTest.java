package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.anthropic.core.http.HttpResponseFor;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.models.messages.Message;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 5): the official SDKs read an answer's id from the {@code
 * request-id} header ({@code err.requestID}, {@code requestId()}), but Levee's own errors carried
 * their id only in {@code x-levee-request-id} and the body, so the SDK's id was empty exactly when
 * a user needed it to find the request in Levee's log. Levee now names what it answers itself in
 * {@code request-id} too, and leaves the upstream's own id on a relayed answer.
 */
class SdkRequestIdRegressionTest {

  @Test
  void theSdkSeesLeveesIdOnLeveesErrorsAndTheUpstreamsOnRelayedAnswers() throws Exception {
    String config = """
        models:
          down:
            chain: [emu/emu-503]
          up:
            chain: [emu/emu-ok]
        """ + Harness.BASE_POLICY;
    try (Harness h = Harness.start(config)) {
      AnthropicServiceException failed = catchThrowableOfType(AnthropicServiceException.class,
          () -> h.sdk.messages().create(Harness.params("down", "every target fails")));
      String leveeId = failed.headers().values("x-levee-request-id").getFirst();
      assertThat(failed.statusCode()).isEqualTo(503);
      assertThat(failed.requestId()).as("the SDK's id of Levee's own error").contains(leveeId);

      HttpResponseFor<Message> relayed = h.sdk.messages().withRawResponse()
          .create(Harness.params("up", "an answer from upstream"));
      String upstreamId = relayed.headers().values("request-id").getFirst();
      assertThat(relayed.headers().values("request-id")).as("one request-id, the upstream's").hasSize(1);
      assertThat(upstreamId).isNotEqualTo(relayed.headers().values("x-levee-request-id").getFirst());
      assertThat(upstreamId).as("the emulator's id, as Anthropic's look").startsWith("req_011C");

      HttpResponse<String> notServed = h.get("/v1/nothing-here");
      assertThat(notServed.statusCode()).isEqualTo(404);
      assertThat(notServed.headers().firstValue("request-id"))
          .isEqualTo(notServed.headers().firstValue("x-levee-request-id")).isPresent();
    }
  }
}
