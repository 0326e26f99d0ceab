package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
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

    String definition = QueryPlans.index(db, config, INDEX);
    assertThat(definition)
        .containsPattern("\\(finished_at, id\\)")
        .containsPattern("WHERE \\(*callback_state = 'pending'");
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void bothSweepsReadTheOwedCallbacksThroughTheIndex(Database.Dialect dialect) throws SQLException {
    Database db = databases.fresh(dialect);

    assertThat(QueryPlans.plan(db, OwedCallbacks.PENDING, 10)).as("pending's plan").contains(INDEX);
    assertThat(QueryPlans.plan(db, OwedCallbacks.claimSql(dialect), "sweeper", 2_000L, 1_000L, 10, 1_000L))
        .as("claim's plan").contains(INDEX);
  }
}
