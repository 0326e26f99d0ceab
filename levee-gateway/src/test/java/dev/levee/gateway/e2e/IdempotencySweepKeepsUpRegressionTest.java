package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.GatewayClock;
import dev.levee.gateway.idempotency.IdempotencyKeys;
import dev.levee.gateway.jobs.Database;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Regression (audit of what clients can grow): the workers' upkeep swept idempotency keys past
 * their TTL one slice at a time ({@value IdempotencyKeys#SWEPT_KEYS} keys every ten {@code
 * queue.poll}s: 100 a second with the defaults), so clients sending more new keys than that — a
 * busy gateway whose clients send a key with every request — left more keys past their TTL at
 * every upkeep than it forgot, and the store grew for as long as they did. Given one long-lived
 * gateway that took 1,200 requests, each with a key of its own, one upkeep after the keys' TTL
 * (24 h, {@code queue.batch-ttl}) has passed forgets all of them; it forgot 1,000.
 *
 * <p>The gateway's wall clock is the test's: the TTL passes in one step, taken by a chore the test
 * adds to the workers' upkeep ({@code JobWorkers#alsoKeepUp}) right after the sweep of that upkeep
 * ran, so the next upkeep's sweep is the first to see the keys past their TTL; the same chore then
 * counts the keys left. The upstream is the emulator, answering at once; traffic stays on loopback.
 */
class IdempotencySweepKeepsUpRegressionTest {

  private static final String CONFIG = """
      models:
        smart: { chain: [emu/emu-ok] }
      queue:
        folder: ${QUEUE}
        poll: 50ms
      """;

  private static final int KEYS = IdempotencyKeys.SWEPT_KEYS + 200;
  private static final int CLIENTS = 4;
  private static final Duration TTL = Duration.ofHours(24); // queue.batch-ttl's default

  private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));

  @Test
  void oneUpkeepForgetsEveryKeyPastItsTtlHoweverManyClientsSent() throws Exception {
    GatewayClock clock = new GatewayClock(SystemClock.ticker(), SystemClock.sleeper(), now::get,
        new SplittableRandom(7), SystemClock.scheduler());
    EmulatorOptions instant = EmulatorOptions.builder().timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO)
        .build();
    try (Harness h = Harness.start(instant, CONFIG, "", clock);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      Database db = h.gateway.work().jobs().database();
      sendKeyed(h, http);
      assertThat(keys(db)).as("a key each, answered and kept").isEqualTo(KEYS);

      BlockingQueue<Long> leftAfterOneUpkeep = new ArrayBlockingQueue<>(1);
      Instant pastTtl = now.get().plus(TTL).plusSeconds(60);
      h.gateway.work().workers().alsoKeepUp((nanos, budget) -> { // runs after the upkeep's sweep
        if (now.get().isBefore(pastTtl)) {
          now.set(pastTtl); // the next upkeep's sweep is the first to see it
        } else if (leftAfterOneUpkeep.isEmpty()) {
          leftAfterOneUpkeep.add(uncheckedKeys(db));
        }
      });

      Long left = leftAfterOneUpkeep.poll(30, TimeUnit.SECONDS);
      assertThat(left).as("keys left after one upkeep past their TTL, of %d", KEYS).isZero();
    }
  }

  private static void sendKeyed(Harness h, HttpClient http) throws Exception {
    List<Future<?>> runs = new ArrayList<>();
    try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int c = 0; c < CLIENTS; c++) {
        int client = c;
        runs.add(clients.submit(() -> {
          for (int i = client; i < KEYS; i += CLIENTS) {
            HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages"))
                .header("content-type", "application/json").header(Harness.VERSION, Harness.DEFAULT_VERSION)
                .header("x-api-key", "sk-client-" + i).header("idempotency-key", "key-" + i)
                .POST(HttpRequest.BodyPublishers.ofString(ClientRequests.message("smart", 16, "hello"))).build(),
                HttpResponse.BodyHandlers.discarding());
            assertThat(answer.statusCode()).as("request %d", i).isEqualTo(200);
          }
          return null;
        }));
      }
      for (Future<?> run : runs) {
        run.get();
      }
    }
  }

  private static long uncheckedKeys(Database db) {
    try {
      return keys(db);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long keys(Database db) throws SQLException {
    try (Connection c = db.connection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM idempotency_keys")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
