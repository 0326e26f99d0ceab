package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Regression: the sweeps that find owed callbacks ({@link OwedCallbacks#claim}, {@link
 * OwedCallbacks#pending}) filter on {@code callback_state = 'pending'} and order by {@code
 * (finished_at, id)}, but no index served them, so on a store holding weeks of finished jobs every
 * sweep read the whole {@code jobs} table. A migrated store has the partial index {@code
 * jobs_callbacks_owed} ({@code V8__owed_callbacks}), and both sweeps' plans read through it.
 */
class OwedCallbacksIndexRegressionTest {

  private static final String INDEX = "jobs_callbacks_owed";

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aMigratedStoreIndexesOnlyTheOwedCallbacksInTheSweepsOrder(Database.Dialect dialect) throws SQLException {
    QueueConfig config = databases.config(dialect);
    Database db = databases.open(config);

    String definition;
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(dialect == Database.Dialect.SQLITE
        ? "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?"
        : "SELECT indexdef FROM pg_indexes WHERE schemaname = ? AND indexname = ?")) {
      if (dialect == Database.Dialect.POSTGRESQL) {
        s.setString(1, config.schema());
        s.setString(2, INDEX);
      } else {
        s.setString(1, INDEX);
      }
      try (ResultSet rs = s.executeQuery()) {
        assertThat(rs.next()).as("index %s exists", INDEX).isTrue();
        definition = rs.getString(1);
      }
    }
    assertThat(definition.replace("\"", "").replaceAll("\\s+", " "))
        .containsPattern("\\(finished_at, id\\)")
        .containsPattern("WHERE \\(*callback_state = 'pending'");
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void bothSweepsReadTheOwedCallbacksThroughTheIndex(Database.Dialect dialect) throws SQLException {
    Database db = databases.fresh(dialect);

    assertThat(plan(db, OwedCallbacks.PENDING, 10)).as("pending's plan").contains(INDEX);
    assertThat(plan(db, OwedCallbacks.claimSql(dialect), "sweeper", 2_000L, 1_000L, 10, 1_000L))
        .as("claim's plan").contains(INDEX);
  }

  /**
   * The plan of {@code sql} bound to {@code parameters}, one string. On PostgreSQL sequential scans
   * are priced out (inside a transaction rolled back after), so an empty test table does not make a
   * scan the cheaper plan: what is shown is whether an index fits the query at all.
   */
  private static String plan(Database db, String sql, Object... parameters) throws SQLException {
    boolean postgres = db.dialect() == Database.Dialect.POSTGRESQL;
    try (Connection c = db.connection()) {
      c.setAutoCommit(false);
      try {
        if (postgres) {
          try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL enable_seqscan = off");
          }
        }
        List<String> lines = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement((postgres ? "EXPLAIN " : "EXPLAIN QUERY PLAN ") + sql)) {
          for (int i = 0; i < parameters.length; i++) {
            s.setObject(i + 1, parameters[i]);
          }
          try (ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
              lines.add(rs.getString(postgres ? 1 : 4)); // SQLite: id, parent, notused, detail
            }
          }
        }
        return String.join("\n", lines);
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    }
  }
}
