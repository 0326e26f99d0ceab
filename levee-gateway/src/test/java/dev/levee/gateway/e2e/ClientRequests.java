package dev.levee.gateway.e2e;

import java.util.HashMap;
import java.util.Map;

/** Raw Messages API requests as a client writes them, for {@link Harness#post}. */
final class ClientRequests {

  private ClientRequests() {}

  /** A Messages API body: one user message {@code prompt} (written as is, unescaped) to {@code model}. */
  static String message(String model, int maxTokens, String prompt) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":" + maxTokens + ",\"messages\":[{\"role\":\"user\",\"content\":\""
        + prompt + "\"}]}";
  }

  /** The headers of tenant {@code sk-a} sending JSON for {@code feature} ({@code x-levee-feature}); a mutable map. */
  static Map<String, String> forFeature(String feature) {
    return new HashMap<>(Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01",
        "content-type", "application/json", "x-levee-feature", feature));
  }
}
