package dev.levee.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.core.ObjectMappers;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.levee.anthropic.sse.SseEvent;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** T3 fail-open: the static answer, parsed by the official Java SDK. */
class StaticAnswerTest {

  private static final JsonMapper SDK = ObjectMappers.jsonMapper();
  private static final String TEXT = "Suggestions are taking a short break. Please try again in a few minutes.";

  private final StaticAnswer answer = new StaticAnswer(TEXT, new SplittableRandom(7));

  @Test
  void theJsonFormIsAValidMessageWithTheStaticText() throws Exception {
    Message message = SDK.readValue(answer.json("claude-haiku-4-5"), Message.class).validate();

    assertThat(message.id()).matches("msg_[0-9A-Za-z]{24}");
    assertThat(message.model().asString()).isEqualTo("claude-haiku-4-5");
    assertThat(message.content()).hasSize(1);
    assertThat(message.content().getFirst().asText().text()).isEqualTo(TEXT);
    assertThat(message.stopReason()).contains(StopReason.END_TURN);
    assertThat(message.stopSequence()).isEmpty();
    assertThat(message.usage().inputTokens()).isZero();
    assertThat(message.usage().outputTokens()).isZero();
  }

  @Test
  void theStreamingFormAccumulatesToTheSameKindOfMessage() throws Exception {
    MessageAccumulator accumulator = MessageAccumulator.create();
    for (SseEvent event : answer.events("claude-haiku-4-5")) {
      accumulator.accumulate(SDK.readValue(event.data(), RawMessageStreamEvent.class));
    }

    Message message = accumulator.message().validate();
    assertThat(message.content().getFirst().asText().text()).isEqualTo(TEXT);
    assertThat(message.stopReason()).contains(StopReason.END_TURN);
    assertThat(message.usage().outputTokens()).isZero();
  }

  @Test
  void everyAnswerHasItsOwnId() throws Exception {
    Message first = SDK.readValue(answer.json("m"), Message.class);
    Message second = SDK.readValue(answer.json("m"), Message.class);

    assertThat(first.id()).isNotEqualTo(second.id());
  }
}
