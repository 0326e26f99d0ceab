package dev.levee.gateway.jobs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Stores for tests: an embedded SQLite file in a fresh folder under {@code java.io.tmpdir}
 * (deleted by {@link #drop}), or the machine's PostgreSQL (127.0.0.1:5432, database {@code test},
 * trust auth) in a fresh schema dropped by {@link #drop}.
 */
public final class TestStores {

  /** The PostgreSQL the machines run (CI's {@code .ci/run} starts it). */
  public static final String POSTGRES = "postgresql://127.0.0.1:5432/test?user=postgres";

  /** The {@code queue.secret} of every test store (base64 of the bytes 0 to 31). */
  public static final String SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

  /** The folders {@link #sqlite} made and {@link #drop} has not deleted yet, by {@link QueueConfig#folder}. */
  private static final Map<String, ThrowAwayStore> FOLDERS = new ConcurrentHashMap<>();

  private TestStores() {}

  /** A config for a new SQLite file in a folder of its own (delete it with {@link #drop}). */
  public static QueueConfig sqlite() {
    ThrowAwayStore store;
    try {
      store = ThrowAwayStore.create("levee-store");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    FOLDERS.put(store.folder().toString(), store);
    return config("", "public", store.folder().toString());
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
        SECRET, null, null, null, null);
  }

  /**
   * Drops a PostgreSQL test schema, or deletes the folder of an SQLite store {@link #sqlite} made
   * (never another folder); call it once every database on the store is closed.
   */
  public static void drop(QueueConfig config) {
    if (config.store().isEmpty()) {
      ThrowAwayStore made = FOLDERS.remove(config.folder());
      if (made != null) {
        made.close();
      }
      return;
    }
    try (Connection c = DriverManager.getConnection("jdbc:" + config.store()); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + config.schema() + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
