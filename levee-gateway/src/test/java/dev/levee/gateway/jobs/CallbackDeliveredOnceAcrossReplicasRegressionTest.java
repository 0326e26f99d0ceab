package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bug (two replicas on one PostgreSQL queue): 20 jobs with a {@code callback-url} got 22
 * callbacks — two jobs got two identical deliveries ~100 ms apart, their rows saying {@code
 * callback_attempts=2, callback_state=delivered}. The store handed pending callbacks to whoever
 * asked, without a claim, and {@link CallbackSender} kept repeats out only within its own process
 * (an {@code inFlight} set), so two replicas polling at the same moment both posted them.
 *
 * <p>Given 20 ended jobs owing a callback, and two replicas (two stores and senders on one
 * PostgreSQL schema; on SQLite, whose file belongs to one process, two of each on its one
 * database), when both look for due callbacks before either delivers, then each job is posted once;
 * and when a replica dies holding claims, the other posts them once the claim's lease has run out on
 * its clock, and not before; and a failed try's next one waits out its backoff on every replica (it
 * used to be kept in the sender's memory only). Deliveries run when the test runs them (an executor of its own), so the
 * race is the same every run.
 */
class CallbackDeliveredOnceAcrossReplicasRegressionTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final int JOBS = 20;

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  private final Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
  private final AtomicReference<Instant> clock = new AtomicReference<>(T0);
  /** How many posts the receiver still answers 500. */
  private final AtomicInteger failing = new AtomicInteger();
  private final List<CallbackSender> senders = new ArrayList<>();
  private HttpServer hook;

  @BeforeEach
  void startTheReceiver() throws IOException {
    hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hook.createContext("/levee-hook", exchange -> {
      try (exchange) {
        exchange.getRequestBody().readAllBytes();
        received.computeIfAbsent(exchange.getRequestHeaders().getFirst("x-levee-job"), id -> new AtomicInteger())
            .incrementAndGet();
        exchange.sendResponseHeaders(failing.getAndDecrement() > 0 ? 500 : 204, -1);
      }
    });
    hook.start();
  }

  @AfterEach
  void stop() {
    senders.forEach(CallbackSender::close);
    hook.stop(0);
  }

  /** A replica: its store on {@code db}, and a sender whose deliveries wait in {@code deliveries}. */
  private CallbackSender replica(Database db, String replicaId, Queue<Runnable> deliveries) {
    CallbackSender sender = new CallbackSender(new JobStore(db, replicaId), "", clock::get, deliveries::add);
    senders.add(sender);
    return sender;
  }

  /** {@link #JOBS} jobs run and ended at {@code T0}, each owing its callback. */
  private List<String> endedJobsOwingCallbacks(JobStore store) {
    String url = "http://127.0.0.1:" + hook.getAddress().getPort() + "/levee-hook";
    for (int i = 0; i < JOBS; i++) {
      store.enqueue(new NewJob("t", "default", "emu-ok", 5, null, new JobRequest("/v1/messages", null,
          Map.of("anthropic-version", List.of("2023-06-01")),
          ("{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"job " + i + "\"}]}")
              .getBytes(StandardCharsets.UTF_8)), null, url), T0, T0.plusSeconds(3600));
    }
    List<Job> claimed = store.claim(JOBS, T0, T0.plusSeconds(60), Set.of(), Set.of());
    assertThat(claimed).hasSize(JOBS);
    for (Job job : claimed) {
      assertThat(store.finish(job, new JobResult(200, Map.of(), "{}".getBytes(StandardCharsets.UTF_8)), true, null,
          T0)).isTrue();
    }
    return claimed.stream().map(Job::id).toList();
  }

  private static void runAll(Queue<Runnable> deliveries) {
    for (Runnable delivery; (delivery = deliveries.poll()) != null; ) {
      delivery.run();
    }
  }

  private static Map<String, Integer> callbackAttempts(Database db) throws SQLException {
    Map<String, Integer> out = new HashMap<>();
    try (Connection c = db.connection();
        PreparedStatement s = c.prepareStatement("SELECT id, callback_attempts FROM jobs");
        ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getInt(2));
      }
    }
    return out;
  }

  /**
   * Two replicas' senders on one store of {@code dialect} (SQLite: one database handle, its single
   * writer), owing callbacks for {@link #JOBS} ended jobs; each replica's tries wait in its queue.
   */
  private record TwoReplicas(Database dbA, JobStore store, List<String> ids, Queue<Runnable> deliveriesA,
      Queue<Runnable> deliveriesB, CallbackSender a, CallbackSender b) {}

  private TwoReplicas twoReplicas(Database.Dialect dialect) throws SQLException {
    QueueConfig config = databases.config(dialect);
    Database dbA = databases.open(config);
    Database dbB = dialect == Database.Dialect.SQLITE ? dbA : databases.open(config);
    JobStore store = new JobStore(dbA);
    List<String> ids = endedJobsOwingCallbacks(store);
    Queue<Runnable> deliveriesA = new ConcurrentLinkedQueue<>();
    Queue<Runnable> deliveriesB = new ConcurrentLinkedQueue<>();
    return new TwoReplicas(dbA, store, ids, deliveriesA, deliveriesB, replica(dbA, "a", deliveriesA),
        replica(dbB, "b", deliveriesB));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void twoReplicasPollingAtOnceDeliverEachCallbackOnce(Database.Dialect dialect) throws SQLException {
    TwoReplicas r = twoReplicas(dialect);
    Database dbA = r.dbA();
    JobStore store = r.store();
    List<String> ids = r.ids();
    Queue<Runnable> deliveriesA = r.deliveriesA();
    Queue<Runnable> deliveriesB = r.deliveriesB();
    CallbackSender a = r.a();
    CallbackSender b = r.b();

    a.deliverDue(); // both poll at the same moment: neither has delivered anything yet
    b.deliverDue();
    runAll(deliveriesA);
    runAll(deliveriesB);

    assertThat(received.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(received).allSatisfy((id, posts) -> assertThat(posts.get()).as("posts of %s", id).isEqualTo(1));
    assertThat(ids).allSatisfy(id -> assertThat(store.callbackState(id)).isEqualTo("delivered"));
    assertThat(callbackAttempts(dbA)).as("one try each").containsOnlyKeys(ids).allSatisfy(
        (id, tries) -> assertThat(tries).isEqualTo(1));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aDeadReplicasClaimsAreDeliveredByAnotherOnceTheirLeaseRunsOut(Database.Dialect dialect) throws SQLException {
    TwoReplicas r = twoReplicas(dialect);
    Database dbA = r.dbA();
    JobStore store = r.store();
    List<String> ids = r.ids();
    Queue<Runnable> deliveriesA = r.deliveriesA();
    Queue<Runnable> deliveriesB = r.deliveriesB();
    CallbackSender a = r.a();
    CallbackSender b = r.b();

    a.deliverDue(); // a claims them, then dies before posting any: its deliveries never run
    assertThat(deliveriesA).hasSize(JOBS);

    b.deliverDue();
    clock.set(T0.plus(QueueConfig.DEFAULT_LEASE).minusMillis(1));
    b.deliverDue();
    runAll(deliveriesB);
    assertThat(received).as("a's claims hold for their lease").isEmpty();
    assertThat(ids).allSatisfy(id -> assertThat(store.callbackState(id)).isEqualTo("pending"));

    clock.set(T0.plus(QueueConfig.DEFAULT_LEASE));
    b.deliverDue();
    runAll(deliveriesB);
    assertThat(received.keySet()).as("taken over once the lease ran out").containsExactlyInAnyOrderElementsOf(ids);
    assertThat(received).allSatisfy((id, posts) -> assertThat(posts.get()).as("posts of %s", id).isEqualTo(1));
    assertThat(ids).allSatisfy(id -> assertThat(store.callbackState(id)).isEqualTo("delivered"));
    assertThat(callbackAttempts(dbA)).as("a's try and b's").allSatisfy((id, tries) -> assertThat(tries).isEqualTo(2));

    runAll(deliveriesA); // a was only stalled: its late tries post again (at least once) but record nothing
    assertThat(ids).allSatisfy(id -> assertThat(store.callbackState(id)).isEqualTo("delivered"));
    assertThat(callbackAttempts(dbA)).allSatisfy((id, tries) -> assertThat(tries).isEqualTo(2));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aFailedTryWaitsOutItsBackoffOnEveryReplica(Database.Dialect dialect) throws SQLException {
    TwoReplicas r = twoReplicas(dialect);
    JobStore store = r.store();
    List<String> ids = r.ids();
    Queue<Runnable> deliveriesA = r.deliveriesA();
    Queue<Runnable> deliveriesB = r.deliveriesB();
    CallbackSender a = r.a();
    CallbackSender b = r.b();
    failing.set(JOBS);

    a.deliverDue();
    runAll(deliveriesA); // every first try answered 500: the next is due 1 s later
    clock.set(T0.plusMillis(999));
    b.deliverDue();
    assertThat(deliveriesB).as("not before the next try's time, on another replica either").isEmpty();

    clock.set(T0.plusSeconds(1));
    b.deliverDue();
    runAll(deliveriesB);
    assertThat(received).allSatisfy((id, posts) -> assertThat(posts.get()).as("posts of %s", id).isEqualTo(2));
    assertThat(ids).allSatisfy(id -> assertThat(store.callbackState(id)).isEqualTo("delivered"));
  }
}
