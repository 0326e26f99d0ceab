package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two gateways started in one directory shared the embedded store {@code levee-data/levee.db}: the
 * second ran part of a batch sent to the first against its own upstream, and at its start queued
 * again the job the first was running ("1 jobs were running when the gateway stopped"), which then
 * ran twice (the first logged a false {@code lease_lost}). Newcomer trial, session 13. The embedded
 * store now belongs to one process, which holds an OS lock on its folder ({@link StoreLock}).
 */
class TwoGatewaysOneEmbeddedStoreRegressionTest {

  @Test
  void aSecondStoreOnTheSameFolderIsRefusedNamingTheFolderAndTheKeyThatMovesIt() throws Exception {
    QueueConfig config = TestStores.sqlite();
    try {
      try (Database first = Database.open(config)) {
        assertThatThrownBy(() -> Database.open(config).close())
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining(folder(config).toString())
            .hasMessageContaining("queue.folder")
            .hasMessageContaining("in use");
        assertThat(first.dialect()).isEqualTo(Database.Dialect.SQLITE);
      }
      try (Database again = Database.open(config)) { // closed: the folder is free again
        assertThat(again.dialect()).isEqualTo(Database.Dialect.SQLITE);
      }
    } finally {
      TestStores.drop(config);
    }
  }

  @Test
  void anotherLiveProcessHoldsTheFolderUntilItIsKilled() throws Exception {
    QueueConfig config = TestStores.sqlite();
    Process holder = StoreHolder.launch(folder(config));
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).isEqualTo("HELD");

      assertThatThrownBy(() -> Database.open(config).close())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(folder(config).toString())
          .hasMessageContaining("process " + holder.pid())
          .hasMessageContaining("queue.folder");

      holder.destroyForcibly(); // kill -9: the lock file stays behind, the OS lock does not
      assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
      try (Database after = Database.open(config)) {
        assertThat(after.dialect()).isEqualTo(Database.Dialect.SQLITE);
      }
    } finally {
      holder.destroyForcibly();
      holder.waitFor(30, TimeUnit.SECONDS); // its files closed before they are deleted
      TestStores.drop(config);
    }
  }

  private static Path folder(QueueConfig config) throws java.io.IOException {
    return config.folderPath().toRealPath();
  }
}
