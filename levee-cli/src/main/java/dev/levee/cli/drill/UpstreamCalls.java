package dev.levee.cli.drill;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The upstream calls per drill second, as the emulator's attempt log ({@code GET /_emulator/log})
 * recorded them: answered (200), rate limited (429), and any other outcome.
 *
 * @param answered calls answered, per second
 * @param rateLimited calls answered 429, per second
 * @param other calls that failed otherwise, per second
 */
record UpstreamCalls(int[] answered, int[] rateLimited, int[] other) {

  static UpstreamCalls read(HttpClient http, Pair pair, int seconds) throws IOException, InterruptedException {
    HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(pair.emulator().resolve("/_emulator/log"))
        .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    JsonNode log = Json.tryParse(response.body());
    if (response.statusCode() != 200 || log == null || !log.isArray()) {
      throw new IOException("the emulator at " + pair.emulator() + " gave no attempt log (HTTP " + response.statusCode() + ")");
    }
    UpstreamCalls calls = new UpstreamCalls(new int[seconds], new int[seconds], new int[seconds]);
    double scale = pair.clock().emulatorScale();
    for (JsonNode entry : log) {
      if (!"/v1/messages".equals(entry.path("path").asText())) {
        continue;
      }
      int second = (int) (entry.path("atMs").asLong() / scale / 1000);
      if (second >= seconds) {
        continue;
      }
      int status = entry.path("status").asInt();
      (status == 200 ? calls.answered : status == 429 ? calls.rateLimited : calls.other)[second]++;
    }
    return calls;
  }

  int total() {
    int sum = 0;
    for (int i = 0; i < answered.length; i++) {
      sum += answered[i] + rateLimited[i] + other[i];
    }
    return sum;
  }
}
