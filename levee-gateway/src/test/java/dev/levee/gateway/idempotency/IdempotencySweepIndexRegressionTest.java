package dev.levee.gateway.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.QueryPlans;
import dev.levee.gateway.jobs.QueueConfig;
import dev.levee.gateway.jobs.TestDatabases;
import java.sql.SQLException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Review of the idempotency-key sweep ({@link IdempotencyKeys#sweep}, run once a minute so that keys
 * clients invent do not pile up): it filtered on the state and the key's expiry or lease, but no
 * index served it, so every sweep read the whole table — a day of keys, one per request for a client
 * that sends a new key with each. A migrated store ({@code V9__idempotency_sweep}) has a partial
 * index for each half of the sweep, and each half's plan reads through its own.
 */
class IdempotencySweepIndexRegressionTest {

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void eachHalfOfTheSweepReadsThroughItsOwnIndex(Database.Dialect dialect) throws SQLException {
    QueueConfig config = databases.config(dialect);
    Database db = databases.open(config);

    assertThat(QueryPlans.index(db, config, "idempotency_keys_expired"))
        .containsPattern("\\(expires_at\\)").containsPattern("WHERE \\(*state = 'done'");
    assertThat(QueryPlans.index(db, config, "idempotency_keys_abandoned"))
        .containsPattern("\\(lease_until\\)").containsPattern("WHERE \\(*state = 'in_flight'");
    assertThat(QueryPlans.plan(db, IdempotencyKeys.SWEEP_EXPIRED, 1_000L)).contains("idempotency_keys_expired");
    assertThat(QueryPlans.plan(db, IdempotencyKeys.SWEEP_ABANDONED, 1_000L)).contains("idempotency_keys_abandoned");
  }
}
