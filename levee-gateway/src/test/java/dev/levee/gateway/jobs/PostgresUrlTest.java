package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): a store written in libpq's form, {@code
 * postgresql://user:password@host/db}, failed with "The connection attempt failed" (the JDBC driver
 * took {@code user:password@host} for the host); its user and password now reach the pool.
 */
class PostgresUrlTest {

  @Test
  void userAndPasswordInTheUrlBecomeThePoolsCredentials() {
    HikariConfig hikari = new HikariConfig();

    Database.usePostgresUrl(hikari, "postgresql://le%40vee:p%3Ass@127.0.0.1:5432/test?ssl=false");

    assertThat(hikari.getJdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/test?ssl=false");
    assertThat(hikari.getUsername()).isEqualTo("le@vee");
    assertThat(hikari.getPassword()).isEqualTo("p:ss");
  }

  @Test
  void aUrlWithoutUserInfoIsUsedAsItIs() {
    HikariConfig hikari = new HikariConfig();

    Database.usePostgresUrl(hikari, TestStores.POSTGRES);

    assertThat(hikari.getJdbcUrl()).isEqualTo("jdbc:" + TestStores.POSTGRES);
    assertThat(hikari.getUsername()).isNull();
  }

  @Test
  void theMachinesPostgresOpensWithTheUserInTheUrl() {
    QueueConfig config = TestStores.config("postgresql://postgres:any@127.0.0.1:5432/test", "levee_url_test", null);
    try (Database db = Database.open(config)) {
      assertThat(db.dialect()).isEqualTo(Database.Dialect.POSTGRESQL);
    } finally {
      TestStores.drop(TestStores.config(TestStores.POSTGRES, "levee_url_test", null));
    }
  }
}
