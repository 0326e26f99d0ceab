package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;

/** A message batch's results as a client fetches them: polling until the batch has ended. */
final class BatchResults {

  private BatchResults() {}

  /**
   * The JSONL of {@code GET /v1/messages/batches/{batch}/results} as tenant {@code sk-a}, asked
   * every 50 ms (real time: the workers run on it) until it answers 200, at most 30 s; asserts the
   * 200.
   */
  static String await(Harness harness, String batch) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    HttpResponse<String> results;
    do {
      Thread.sleep(50); // polling a real server, as a client would
      results = harness.getWith("/v1/messages/batches/" + batch + "/results", "sk-a");
    } while (results.statusCode() != 200 && System.nanoTime() < until);
    assertThat(results.statusCode()).as(results.body()).isEqualTo(200);
    return results.body();
  }
}
