package dev.levee.gateway.jobs;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The database behind jobs, batches and idempotency keys, migrated by Flyway on open
 * ({@code db/levee/sqlite} or {@code db/levee/postgresql} on the class path).
 *
 * <p><b>SQLite</b> (the embedded default): one connection, so every transaction is the only
 * writer: claiming a job is atomic without row locks. WAL journal with {@code synchronous=NORMAL}:
 * a committed job survives the process being killed (not necessarily a power cut). The folder
 * belongs to one process, which holds an OS lock on it ({@code StoreLock}, {@code levee.lock})
 * from before the file is opened until {@link #close}: at start-up every job left {@code running}
 * is queued again, which is only right when no other live gateway runs them.
 *
 * <p><b>PostgreSQL</b>: a small pool; several gateways share the tables and claim with {@code
 * FOR UPDATE SKIP LOCKED}.
 */
public final class Database implements AutoCloseable {

  /** The SQL spoken: the only differences are types (in the migrations) and row locking. */
  public enum Dialect { SQLITE, POSTGRESQL }

  private final HikariDataSource pool;
  private final Dialect dialect;
  private final StoreLock lock; // SQLite's; null for PostgreSQL

  private Database(HikariDataSource pool, Dialect dialect, StoreLock lock) {
    this.pool = pool;
    this.dialect = dialect;
    this.lock = lock;
  }

  /**
   * Opens (creating and migrating when needed) the database {@code config} names.
   *
   * @throws IllegalStateException when the database cannot be reached or migrated, or when another
   *     live process (or another open store of this one) holds the embedded store's folder
   */
  public static Database open(QueueConfig config) {
    StoreLock lock = null;
    if (config.store().isEmpty()) {
      try {
        Files.createDirectories(config.folderPath());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the queue folder " + config.folderPath(), e);
      }
      lock = StoreLock.take(config.folderPath()); // before the file is migrated or any job recovered
    }
    try {
      return open(config, lock);
    } catch (RuntimeException e) {
      if (lock != null) {
        lock.close();
      }
      throw e;
    }
  }

  private static Database open(QueueConfig config, StoreLock lock) {
    HikariConfig hikari = new HikariConfig();
    hikari.setPoolName("levee-queue");
    Dialect dialect;
    if (lock != null) {
      dialect = Dialect.SQLITE;
      Path file = config.folderPath().resolve("levee.db").toAbsolutePath();
      hikari.setJdbcUrl("jdbc:sqlite:" + file);
      hikari.addDataSourceProperty("journal_mode", "WAL");
      hikari.addDataSourceProperty("synchronous", "NORMAL");
      hikari.addDataSourceProperty("busy_timeout", "10000");
      hikari.setMaximumPoolSize(1); // the single writer
    } else {
      dialect = Dialect.POSTGRESQL;
      usePostgresUrl(hikari, config.store());
      hikari.setSchema(config.schema());
      hikari.setMaximumPoolSize(Math.min(32, config.workers() + 4));
    }
    hikari.setMinimumIdle(1);
    hikari.setInitializationFailTimeout(10_000);
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(hikari);
    } catch (RuntimeException e) {
      throw new IllegalStateException("cannot open the queue store " + config.storeShown() + ": " + e.getMessage(), e);
    }
    try {
      Flyway.configure()
          .dataSource(pool)
          .locations("classpath:db/levee/" + dialect.name().toLowerCase())
          .schemas(dialect == Dialect.POSTGRESQL ? new String[] {config.schema()} : new String[0])
          .table("levee_schema_history")
          .load()
          .migrate();
    } catch (RuntimeException e) {
      pool.close();
      throw new IllegalStateException("cannot migrate the queue store " + config.storeShown() + ": " + e.getMessage(), e);
    }
    return new Database(pool, dialect, lock);
  }

  public Dialect dialect() {
    return dialect;
  }

  public DataSource dataSource() {
    return pool;
  }

  /** A connection from the pool (SQLite: the one connection, waited for). */
  public Connection connection() throws SQLException {
    return pool.getConnection();
  }

  /** Work on one connection inside a transaction. */
  @FunctionalInterface
  public interface Transaction<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * Runs {@code work} in one transaction on a connection of its own, given back when it ends:
   * committed when it returns, rolled back when it throws.
   *
   * @throws JobStore.StoreException saying {@code what} failed, on a database error
   */
  public <T> T inTransaction(String what, Transaction<T> work) {
    try (Connection c = connection()) {
      c.setAutoCommit(false);
      try {
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw new JobStore.StoreException(what, e);
    }
  }

  @Override
  public void close() {
    pool.close();
    if (lock != null) {
      lock.close();
    }
  }

  /**
   * Points {@code hikari} at a {@code postgresql://} URL. The PostgreSQL JDBC driver reads no
   * {@code user:password@} in a URL (libpq's form, the one a {@code DATABASE_URL} usually has), so
   * those are taken out of the URL and given as the pool's user name and password (percent-decoded).
   */
  static void usePostgresUrl(HikariConfig hikari, String store) {
    URI url = URI.create(store);
    String userInfo = url.getRawUserInfo();
    if (userInfo == null) {
      hikari.setJdbcUrl("jdbc:" + store);
      return;
    }
    int colon = userInfo.indexOf(':');
    hikari.setUsername(URLDecoder.decode(colon < 0 ? userInfo : userInfo.substring(0, colon), StandardCharsets.UTF_8));
    if (colon >= 0) {
      hikari.setPassword(URLDecoder.decode(userInfo.substring(colon + 1), StandardCharsets.UTF_8));
    }
    hikari.setJdbcUrl("jdbc:" + store.replaceFirst("^postgresql://[^@/?]*@", "postgresql://"));
  }
}
