package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A store made before callbacks were claimed (schema version 6) opens, gains the claim columns
 * ({@code V7__callback_claims}), and the callback it still owed is claimed and posted once, its tries
 * counted on from the earlier version's.
 */
class OwedCallbacksMigrationTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  /** Migrates {@code config}'s store to version 6 only, as the previous version left it; its JDBC URL. */
  private static String previousVersionStore(QueueConfig config, Database.Dialect dialect) throws Exception {
    String url;
    if (dialect == Database.Dialect.SQLITE) {
      Files.createDirectories(config.folderPath());
      url = "jdbc:sqlite:" + config.folderPath().resolve("levee.db").toAbsolutePath();
    } else {
      url = "jdbc:" + config.store() + "&currentSchema=" + config.schema();
    }
    Flyway.configure().dataSource(url, null, null)
        .locations("classpath:db/levee/" + dialect.name().toLowerCase())
        .schemas(dialect == Database.Dialect.POSTGRESQL ? new String[] {config.schema()} : new String[0])
        .table("levee_schema_history").target("6").load().migrate();
    return url;
  }

  /** A job the previous version ended, whose callback to {@code hook} failed once and is still owed. */
  private static void owedCallback(String url, String id, String hook) throws SQLException {
    try (Connection c = DriverManager.getConnection(url); PreparedStatement s = c.prepareStatement(
        "INSERT INTO jobs (id, tenant, feature, alias, priority, request_path, request_headers, request_body, "
            + "state, attempts, created_at, updated_at, run_after, finished_at, expires_at, result_status, "
            + "result_headers, result_body, callback_url, callback_state, callback_attempts) "
            + "VALUES (?, 't', 'default', 'emu-ok', 5, '/v1/messages', '{}', ?, 'succeeded', 1, ?, ?, ?, ?, ?, 200, "
            + "'{}', ?, ?, 'pending', 1)")) {
      long at = T0.toEpochMilli();
      s.setString(1, id);
      s.setBytes(2, "{}".getBytes());
      s.setLong(3, at);
      s.setLong(4, at);
      s.setLong(5, at);
      s.setLong(6, at);
      s.setLong(7, at + 3_600_000);
      s.setBytes(8, "{}".getBytes());
      s.setString(9, hook);
      s.executeUpdate();
    }
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aStoreOfThePreviousVersionOpensAndPostsItsOwedCallbackOnce(Database.Dialect dialect) throws Exception {
    List<String> received = new ArrayList<>();
    HttpServer hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hook.createContext("/levee-hook", exchange -> {
      try (exchange) {
        exchange.getRequestBody().readAllBytes();
        synchronized (received) {
          received.add(exchange.getRequestHeaders().getFirst("x-levee-job"));
        }
        exchange.sendResponseHeaders(204, -1);
      }
    });
    hook.start();
    QueueConfig config = databases.config(dialect);
    String id = "job_from_the_previous_version";
    owedCallback(previousVersionStore(config, dialect), id,
        "http://127.0.0.1:" + hook.getAddress().getPort() + "/levee-hook");

    JobStore store = new JobStore(databases.open(config));
    Queue<Runnable> deliveries = new ConcurrentLinkedQueue<>();
    try (CallbackSender sender = new CallbackSender(store, "", () -> T0.plusSeconds(60), deliveries::add)) {
      sender.deliverDue();
      sender.deliverDue(); // claimed already: not posted twice
      assertThat(deliveries).hasSize(1);
      deliveries.poll().run();
    } finally {
      hook.stop(0);
    }

    assertThat(received).containsExactly(id);
    assertThat(store.callbackState(id)).isEqualTo("delivered");
    assertThat(new OwedCallbacks(store.database(), "test").pending(10)).isEmpty();
  }
}
