package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bug: {@link JobStore#expire} ended a queued job {@code expired} without marking its callback
 * owed, so a feature's {@code callback-url} never heard of a job that expired in the queue, though
 * docs/jobs.md says the callback fires once the job ends ({@link JobStore#finish} marked it).
 * Given jobs with a callback URL past their expiry, when the store (or two replicas at once)
 * expires them, then each one's callback is owed exactly once and is posted with the expired job.
 */
class ExpiredJobOwesItsCallbackRegressionTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant EXPIRY = T0.plusSeconds(10);
  private static final String HOOK = "http://127.0.0.1:9/levee-hook";

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  private static NewJob job(String text, String callbackUrl) {
    return new NewJob("t", "default", "emu-ok", 5, null, new JobRequest("/v1/messages", null,
        Map.of("anthropic-version", List.of("2023-06-01")),
        ("{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}")
            .getBytes(StandardCharsets.UTF_8)), null, callbackUrl);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void anExpiredJobWithACallbackUrlOwesItsCallbackOnce(Database.Dialect dialect) {
    JobStore store = new JobStore(databases.fresh(dialect));
    String hooked = store.enqueue(job("hooked", HOOK), T0, EXPIRY);
    String silent = store.enqueue(job("silent", null), T0, EXPIRY);

    assertThat(store.expire(EXPIRY)).isEqualTo(2);
    assertThat(store.expire(EXPIRY.plusSeconds(1))).as("already ended: not expired again").isZero();

    assertThat(store.callbackState(hooked)).isEqualTo("pending");
    assertThat(store.callbackState(silent)).as("no callback URL: none owed").isNull();
    OwedCallbacks callbacks = new OwedCallbacks(store.database(), "test");
    List<OwedCallbacks.Callback> owed = callbacks.pending(32);
    assertThat(owed).singleElement().satisfies(callback -> {
      assertThat(callback.job().id()).isEqualTo(hooked);
      assertThat(callback.job().state()).isEqualTo(JobState.EXPIRED);
      assertThat(callback.url()).isEqualTo(HOOK);
      assertThat(callback.attempts()).isZero();
    });

    OwedCallbacks.Callback claimed = callbacks.claim(32, EXPIRY, EXPIRY.plusSeconds(60)).getFirst();
    assertThat(callbacks.record(claimed, "delivered", null)).isTrue();
    assertThat(callbacks.pending(32)).isEmpty();
    assertThat(store.expire(EXPIRY.plusSeconds(2))).isZero();
    assertThat(store.callbackState(hooked)).as("not owed again once delivered").isEqualTo("delivered");
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void replicasExpiringAtOnceOweEachCallbackOnce(Database.Dialect dialect) throws Exception {
    QueueConfig config = databases.config(dialect);
    Database a = databases.open(config);
    JobStore replicaA = new JobStore(a, "a");
    // replicas share PostgreSQL; an embedded store belongs to one process, whose two threads expire at once
    JobStore replicaB = new JobStore(dialect == Database.Dialect.SQLITE ? a : databases.open(config), "b");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      ids.add(replicaA.enqueue(job("job " + i, HOOK), T0, EXPIRY));
    }

    CountDownLatch go = new CountDownLatch(1);
    int expired = 0;
    try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
      List<Future<Integer>> runs = new ArrayList<>();
      for (JobStore replica : List.of(replicaA, replicaB)) {
        runs.add(threads.submit(() -> {
          go.await();
          return replica.expire(EXPIRY);
        }));
      }
      go.countDown();
      for (Future<Integer> run : runs) {
        expired += run.get(30, TimeUnit.SECONDS);
      }
    }

    assertThat(expired).as("each job expired by one replica").isEqualTo(ids.size());
    assertThat(new OwedCallbacks(replicaB.database(), "b").pending(100)).extracting(c -> c.job().id())
        .as("each callback owed once").containsExactlyInAnyOrderElementsOf(ids);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void theCallbackUrlReceivesTheExpiredJob(Database.Dialect dialect) throws Exception {
    JobStore store = new JobStore(databases.fresh(dialect));
    CompletableFuture<String> received = new CompletableFuture<>();
    HttpServer hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hook.createContext("/levee-hook", exchange -> {
      try (exchange) {
        received.complete(exchange.getRequestHeaders().getFirst("x-levee-job") + " "
            + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        exchange.sendResponseHeaders(204, -1);
      } catch (IOException e) {
        received.completeExceptionally(e);
      }
    });
    hook.start();
    try (CallbackSender sender = new CallbackSender(store, "", InstantSource.fixed(EXPIRY))) {
      String id = store.enqueue(job("hooked", "http://127.0.0.1:" + hook.getAddress().getPort() + "/levee-hook"),
          T0, EXPIRY);
      store.expire(EXPIRY);

      sender.deliverDue();

      assertThat(received.get(Duration.ofSeconds(30).toSeconds(), TimeUnit.SECONDS))
          .startsWith(id + " ").contains("\"state\":\"expired\"");
    } finally {
      hook.stop(0);
    }
  }
}
