package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.batches.BatchStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The drain order is priority, then age, across and within features — and a batch's requests,
 * all stored at one instant, drain in request order. Before the fix the tie between a batch's
 * equally old jobs was broken by their random ids, so a batch drained in no particular order.
 */
class DrainOrderRegressionTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant FAR = T0.plus(Duration.ofHours(24));

  @RegisterExtension
  final TestDatabases databases = new TestDatabases();

  private JobStore fresh(Database.Dialect dialect) {
    return new JobStore(databases.fresh(dialect));
  }

  private static NewJob job(String feature, int priority, String customId) {
    return new NewJob("t", feature, "emu-ok", priority, customId, new JobRequest("/v1/messages", null, Map.of(),
        "{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[]}".getBytes(StandardCharsets.UTF_8)), null);
  }

  private static List<String> drain(JobStore store, int perClaim) {
    List<String> order = new ArrayList<>();
    List<Job> claimed;
    do {
      claimed = store.claim(perClaim, T0.plusSeconds(1), FAR, Set.of(), Set.of());
      claimed.forEach(j -> order.add(j.customId()));
    } while (!claimed.isEmpty());
    return order;
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aBatchDrainsInRequestOrder(Database.Dialect dialect) {
    JobStore store = fresh(dialect);
    List<NewJob> requests = new ArrayList<>();
    List<String> customIds = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      requests.add(job("nightly", 5, "r" + i));
      customIds.add("r" + i);
    }
    new BatchStore(store).create("t", requests, T0, FAR);

    assertThat(drain(store, 7)).containsExactlyElementsOf(customIds);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void priorityThenAgeDecideAcrossAndWithinFeatures(Database.Dialect dialect) {
    JobStore store = fresh(dialect);
    BatchStore batches = new BatchStore(store);
    batches.create("t", List.of(job("nightly", 2, "low-a"), job("nightly", 2, "low-b")), T0, FAR);
    batches.create("t", List.of(job("nightly", 8, "high-a"), job("nightly", 8, "high-b")), T0.plusMillis(1), FAR);
    batches.create("t", List.of(job("reports", 5, "mid-a"), job("reports", 5, "mid-b")), T0.plusMillis(2), FAR);
    store.enqueue(job("default", 8, "high-later"), T0.plusMillis(3), FAR);

    assertThat(drain(store, 3)).containsExactly("high-a", "high-b", "high-later", "mid-a", "mid-b", "low-a", "low-b");
  }
}
