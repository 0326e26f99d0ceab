package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Newcomer trial: the access log had no HTTP method, so a GET, a DELETE and a POST …/cancel on a
 * batch read alike, and a 405's line did not say which method was refused. Every line now names
 * its method right after the request id ({@code lv_… PUT /v1/messages status=405 …}).
 */
class AccessLogNamesTheMethodRegressionTest {

  private static final String SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
  private static final String CONFIG = Harness.BASE_POLICY + """
      models:
        chat:
          chain: [emu/claude-big]
      queue:
        folder: ${QUEUE}
        secret: %s
      """.formatted(SECRET);
  private static final String BODY =
      "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  @Test
  void everyAccessLineNamesItsMethodAfterTheId() throws Exception {
    try (Harness h = Harness.start(CONFIG); AccessLines access = new AccessLines()) {
      Map<String, String> expected = new LinkedHashMap<>(); // request id -> what its line starts with
      HttpResponse<String> post = send(h, "POST", "/v1/messages", BODY);
      assertThat(post.statusCode()).as(post.body()).isEqualTo(200);
      expected.put(id(post), "POST /v1/messages model=chat ");
      HttpResponse<String> list = send(h, "GET", "/v1/messages/batches", null);
      assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
      expected.put(id(list), "GET /v1/messages/batches status=200 ");
      HttpResponse<String> delete = send(h, "DELETE", "/v1/messages/batches/msgbatch_none", null);
      expected.put(id(delete), "DELETE /v1/messages/batches/msgbatch_none status=" + delete.statusCode() + " ");
      HttpResponse<String> put = send(h, "PUT", "/v1/messages", BODY);
      assertThat(put.statusCode()).as(put.body()).isEqualTo(405);
      expected.put(id(put), "PUT /v1/messages status=405 ");

      // each line is written just after its answer went out: wait for every one, not for the last alone
      List<String> lines = access.await(expected.keySet());
      expected.forEach((id, start) -> assertThat(lines).as(id)
          .anySatisfy(line -> assertThat(line).contains(" - " + id + " " + start)));
    }
  }

  private static String id(HttpResponse<String> response) {
    return response.headers().firstValue("x-levee-request-id").orElseThrow();
  }

  private static HttpResponse<String> send(Harness h, String method, String path, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path))
        .timeout(Duration.ofSeconds(20))
        .header("x-api-key", "sk-test-client-key")
        .header(Harness.VERSION, Harness.DEFAULT_VERSION)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("content-type", "application/json");
    }
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  /**
   * The {@code levee.access} lines written while open: its slf4j-simple level lowered to INFO and
   * {@code System.err} copied aside, both restored on close (as {@code jobs.LogLines}; not for
   * parallel tests).
   */
  private static final class AccessLines implements AutoCloseable {

    private static final int INFO = 20; // slf4j-simple's LOG_LEVEL_INFO

    private final Object logger = LoggerFactory.getLogger("levee.access");
    private final Field level;
    private final int levelBefore;
    private final PrintStream errBefore = System.err;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    AccessLines() throws ReflectiveOperationException {
      level = logger.getClass().getDeclaredField("currentLogLevel");
      level.setAccessible(true);
      levelBefore = level.getInt(logger);
      level.setInt(logger, INFO);
      System.setErr(new PrintStream(copy, true, StandardCharsets.UTF_8));
    }

    /** The access lines once one names each of {@code ids}, or as they are after 10 s. */
    List<String> await(Iterable<String> ids) {
      long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      List<String> lines = lines();
      while (!namesEach(lines, ids) && System.nanoTime() < until) {
        Thread.onSpinWait();
        lines = lines();
      }
      return lines;
    }

    private static boolean namesEach(List<String> lines, Iterable<String> ids) {
      for (String id : ids) {
        if (lines.stream().noneMatch(line -> line.contains(" - " + id + " "))) {
          return false;
        }
      }
      return true;
    }

    private List<String> lines() {
      return copy.toString(StandardCharsets.UTF_8).lines().filter(line -> line.contains(" levee.access - ")).toList();
    }

    @Override
    public void close() throws IllegalAccessException {
      System.setErr(errBefore);
      level.setInt(logger, levelBefore);
    }
  }
}
