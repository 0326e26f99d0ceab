package dev.levee.emulator;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.ContentBlock;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import java.time.Duration;
import java.util.stream.Collectors;

/** The official Java SDK pointed at an emulator, without retries. */
final class Sdk {

  private Sdk() {}

  static AnthropicClient client(Emulator emulator) {
    return client(emulator, Duration.ofSeconds(10));
  }

  static AnthropicClient client(Emulator emulator, Duration timeout) {
    return AnthropicOkHttpClient.builder().baseUrl(emulator.baseUrl()).apiKey("test").maxRetries(0)
        .timeout(timeout).build();
  }

  static MessageCreateParams params(String model, String userText) {
    return MessageCreateParams.builder().model(model).maxTokens(1024).addUserMessage(userText).build();
  }

  /** Streams and accumulates a message. */
  static Message streamed(AnthropicClient client, MessageCreateParams params) {
    MessageAccumulator accumulator = MessageAccumulator.create();
    try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(params)) {
      stream.stream().forEach(accumulator::accumulate);
    }
    return accumulator.message();
  }

  /** The text of all text blocks, joined. */
  static String text(Message message) {
    return message.content().stream().flatMap(block -> block.text().stream())
        .map(text -> text.text()).collect(Collectors.joining());
  }

  static boolean isText(ContentBlock block) {
    return block.text().isPresent();
  }
}
