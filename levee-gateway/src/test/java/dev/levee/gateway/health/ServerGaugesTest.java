package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.route.PriceTable;
import dev.levee.core.time.ManualClock;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the server reports of its own state, read from its suppliers at each scrape. */
class ServerGaugesTest {

  @Test
  void bodyBytesHeldAndLateReadsAreScrapedUnderTheirNames() {
    Metrics metrics = new Metrics(new MetricLabels(java.util.Set.of(), java.util.Set.of(), java.util.Set.of(), java.util.Set.of()),
        PriceTable.defaults(), new ManualClock());
    AtomicLong held = new AtomicLong(4096);
    AtomicLong late = new AtomicLong(3);
    metrics.watchBodyBytes(held::get);
    metrics.watchLateReaders(late::get);

    assertThat(metrics.scrape()).contains("levee_request_body_bytes 4096.0").contains("levee_upstream_late_reads_total 3.0");
    held.set(0);
    late.set(5);
    assertThat(metrics.scrape()).contains("levee_request_body_bytes 0.0").contains("levee_upstream_late_reads_total 5.0");
  }
}
