package dev.levee.gateway.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** What a store's indexes are, and which one a query reads through, in both dialects (tests of migrations). */
public final class QueryPlans {

  private QueryPlans() {}

  /** The definition of index {@code name} in a store opened with {@code config}: its SQL, quotes and runs of spaces collapsed. */
  public static String index(Database db, QueueConfig config, String name) throws SQLException {
    boolean postgres = db.dialect() == Database.Dialect.POSTGRESQL;
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(postgres
        ? "SELECT indexdef FROM pg_indexes WHERE schemaname = ? AND indexname = ?"
        : "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?")) {
      if (postgres) {
        s.setString(1, config.schema());
        s.setString(2, name);
      } else {
        s.setString(1, name);
      }
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          throw new AssertionError("no index " + name);
        }
        return rs.getString(1).replace("\"", "").replaceAll("\\s+", " ");
      }
    }
  }

  /**
   * The plan of {@code sql} bound to {@code parameters}, one string. On PostgreSQL sequential scans
   * are priced out (inside a transaction rolled back after), so an empty test table does not make a
   * scan the cheaper plan: what is shown is whether an index fits the query at all.
   */
  public static String plan(Database db, String sql, Object... parameters) throws SQLException {
    return plan(db, true, sql, parameters);
  }

  /**
   * The plan the store chooses for {@code sql} bound to {@code parameters}, sequential scans priced
   * as usual: for a populated store (on PostgreSQL, its tables analyzed first), what the query
   * would read.
   */
  public static String chosen(Database db, String sql, Object... parameters) throws SQLException {
    return plan(db, false, sql, parameters);
  }

  private static String plan(Database db, boolean indexesOnly, String sql, Object... parameters) throws SQLException {
    boolean postgres = db.dialect() == Database.Dialect.POSTGRESQL;
    try (Connection c = db.connection()) {
      c.setAutoCommit(false);
      try {
        if (postgres && indexesOnly) {
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
