package dev.levee.cli.drill;

import dev.levee.anthropic.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * Posts a drill's summary to a chat webhook as Slack's incoming webhooks take it: {@code
 * {"text": "…"}} (also accepted by Mattermost, Rocket.Chat and Teams' Slack-compatible hooks).
 */
final class Webhook {

  private Webhook() {}

  /**
   * @throws IOException when the hook cannot be reached or answers other than 2xx
   */
  static void post(URI url, String text) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(20))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(Json.bytes(Map.of("text", text)))).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() / 100 != 2) {
      throw new IOException("HTTP " + response.statusCode());
    }
  }
}
