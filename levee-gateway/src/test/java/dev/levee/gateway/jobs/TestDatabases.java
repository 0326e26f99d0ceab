package dev.levee.gateway.jobs;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fresh databases for tests ({@link TestStores}: a new SQLite file or PostgreSQL schema), for a
 * {@code @RegisterExtension} field: after each test it closes every database it opened, then drops
 * the PostgreSQL schemas it made.
 */
public final class TestDatabases implements AfterEachCallback {

  private final List<QueueConfig> configs = new ArrayList<>();
  private final List<Database> open = new ArrayList<>();

  /** A config for a new store of {@code dialect}, dropped after the test. */
  public QueueConfig config(Database.Dialect dialect) {
    QueueConfig config = TestStores.of(dialect);
    configs.add(config);
    return config;
  }

  /** {@code config}'s database, opened (again, after a simulated crash, say); closed after the test. */
  public Database open(QueueConfig config) {
    Database db = Database.open(config);
    open.add(db);
    return db;
  }

  /** A new store of {@code dialect}, open. */
  public Database fresh(Database.Dialect dialect) {
    return open(config(dialect));
  }

  /** Closes {@code db} now (a replica's crash) instead of after the test. */
  public void crash(Database db) {
    open.remove(db);
    db.close();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    open.forEach(Database::close);
    configs.forEach(TestStores::drop);
  }
}
