package dev.levee.gateway.e2e;

import dev.levee.gateway.pipeline.StreamThresholds;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Issue 11: the whole recovery matrix and its edges ({@link StreamRecoveryTest}: cuts, stalls
 * between deltas, in-band errors, a client leaving mid-stall, which closes the upstream and counts
 * as no failure) with every stream waiting for its upstream with no thread, as each does while many
 * streams are in flight.
 */
class ParklessStreamRecoveryTest extends StreamRecoveryTest {

  @BeforeAll
  static void everyStreamWaitsWithNoThread() {
    StreamThresholds.everyStreamWaitsWithNoThread();
  }

  @AfterAll
  static void restore() {
    StreamThresholds.restore();
  }
}
