package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.QueueConfig;
import dev.levee.gateway.jobs.ThrowAwayStore;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression (test hygiene): each full test run left thousands of {@code /tmp/levee-*} folders
 * behind (about 3,400 reported): the job stores of gateways started for one test ({@code
 * Files.createTempDirectory} in the {@link Harness}, {@code TestStores} and the tests' own YAML) and
 * of the demo, the drill and the benchmarks; nothing ever deleted them. Whoever makes a job store folder for one run now owns it as
 * a {@link ThrowAwayStore} and deletes it once the gateway closed. A gateway itself deletes nothing:
 * a configured {@code queue.folder} keeps its batches across restarts.
 */
class TempDataFolderRemovedOnCloseRegressionTest {

  private static final String SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

  private static final String BATCH_PARAMS =
      "{\"model\":\"chat\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  @Test
  void gatewaysStartedAndClosedInOneProcessLeaveNoFolderBehind() throws Exception {
    List<Path> folders = new ArrayList<>();
    for (int i = 0; i < 5; i++) { // as a test class, or a library user, starts and closes gateway after gateway
      try (Harness h = Harness.start("models:\n  chat:\n    chain: [emu/emu-ok]\n")) {
        Path folder = h.queueFolder();
        folders.add(folder);
        assertThat(folder).startsWith(Path.of(System.getProperty("java.io.tmpdir")));
        assertThat(folder.resolve("levee.db")).as("the gateway's job store is in it").isRegularFile();
        assertThat(h.post("/v1/messages", BATCH_PARAMS, Map.of("x-api-key", "k")).statusCode()).isEqualTo(200);
      }
    }

    assertThat(folders).doesNotHaveDuplicates().allSatisfy(folder -> assertThat(folder).doesNotExist());
  }

  @Test
  void aConfiguredFolderOutlivesItsGatewayWithItsBatches(@TempDir Path dir) throws Exception {
    Path configured = dir.resolve("levee-data"); // as queue.folder names it: not the gateway's to delete
    String yaml = "models:\n  chat:\n    chain: [emu/emu-ok]\n"
        + "queue: { folder: '" + configured + "', secret: " + SECRET + ", poll: 20ms }\n";
    String id;
    Path throwAway;
    try (Harness first = Harness.start(yaml)) {
      throwAway = first.queueFolder(); // made by the harness, unused by this config
      id = DrainingQueue.postBatch(first, 1, "r", i -> BATCH_PARAMS, Map.of("x-api-key", "sk-a"));
    }

    assertThat(configured.resolve("levee.db")).isRegularFile();
    assertThat(throwAway).doesNotExist();
    try (Harness restarted = Harness.start(yaml)) { // the same folder: the batch is still there
      HttpResponse<String> batch = restarted.getWith("/v1/messages/batches/" + id, "sk-a");
      assertThat(batch.statusCode()).as(batch.body()).isEqualTo(200);
      assertThat(batch.body()).contains("\"id\":\"" + id + "\"");
    }
    assertThat(configured.resolve("levee.db")).isRegularFile();
  }

  @Test
  void aThrowAwayStoreDeletesEveryFileItsStoreLeftAndOnlyOnce() throws Exception {
    ThrowAwayStore store = ThrowAwayStore.create("levee-throwaway");
    Path folder = store.folder();
    QueueConfig config = new QueueConfig("", null, folder.toString(), null, null, null, null, null, null, null,
        null, null, null);
    try (Database db = Database.open(config)) {
      assertThat(db.dialect()).isEqualTo(Database.Dialect.SQLITE);
    }
    try (var files = Files.list(folder)) {
      assertThat(files.map(f -> f.getFileName().toString())).contains("levee.db", "levee.lock");
    }

    store.close();
    store.close(); // idempotent

    assertThat(folder).doesNotExist();
    assertThat(store.queueSection()).isEqualTo("queue: { folder: '" + folder + "' }\n");
  }
}
