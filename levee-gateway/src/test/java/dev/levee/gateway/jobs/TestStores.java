package dev.levee.gateway.jobs;

import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Stores for tests: an embedded SQLite file in a fresh folder, or the machine's PostgreSQL
 * (127.0.0.1:5432, database {@code test}, trust auth) in a fresh schema dropped afterwards.
 */
public final class TestStores {

  /** The PostgreSQL the machines run (CI's {@code .ci/run} starts it). */
  public static final String POSTGRES = "postgresql://127.0.0.1:5432/test?user=postgres";

  private TestStores() {}

  /** A config for a new SQLite file. */
  public static QueueConfig sqlite() {
    try {
      return config("", "public", Files.createTempDirectory("levee-store").toString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A config for a new PostgreSQL schema (drop it with {@link #drop}). */
  public static QueueConfig postgres() {
    String schema = "levee_t" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    return config(POSTGRES, schema, null);
  }

  /** {@code config} for {@code dialect}. */
  public static QueueConfig of(Database.Dialect dialect) {
    return dialect == Database.Dialect.SQLITE ? sqlite() : postgres();
  }

  static QueueConfig config(String store, String schema, String folder) {
    return new QueueConfig(store, schema, folder, 4, null, null, null, null,
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", null, null, null, null);
  }

  /** Drops a PostgreSQL test schema; nothing for SQLite (its folder is a temp one). */
  public static void drop(QueueConfig config) {
    if (config.store().isEmpty()) {
      return;
    }
    try (Connection c = DriverManager.getConnection("jdbc:" + config.store()); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + config.schema() + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
