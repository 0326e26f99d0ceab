package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConcurrencyLimitTest {

  @Test
  void aTenantAtItsLimitIsRefusedWhileOthersAreAdmittedUpToTheTotal() {
    ConcurrencyLimit limit = new ConcurrencyLimit(3, 2);

    ConcurrencyLimit.Decision a1 = limit.tryAcquire("a");
    ConcurrencyLimit.Decision a2 = limit.tryAcquire("a");
    ConcurrencyLimit.Decision a3 = limit.tryAcquire("a");
    ConcurrencyLimit.Decision b1 = limit.tryAcquire("b");
    ConcurrencyLimit.Decision c1 = limit.tryAcquire("c");

    assertThat(a1).isInstanceOf(ConcurrencyLimit.Permit.class);
    assertThat(a2).isInstanceOf(ConcurrencyLimit.Permit.class);
    assertThat(a3).isEqualTo(ConcurrencyLimit.Refused.TENANT);
    assertThat(b1).isInstanceOf(ConcurrencyLimit.Permit.class);
    assertThat(c1).isEqualTo(ConcurrencyLimit.Refused.TOTAL);
    assertThat(limit.inFlight()).isEqualTo(3);
  }

  @Test
  void releasingIsIdempotentAndFreesBothLimits() {
    ConcurrencyLimit limit = new ConcurrencyLimit(1, 1);
    ConcurrencyLimit.Permit permit = (ConcurrencyLimit.Permit) limit.tryAcquire("a");

    permit.close();
    permit.close();

    assertThat(limit.inFlight()).isZero();
    assertThat(limit.tryAcquire("a")).isInstanceOf(ConcurrencyLimit.Permit.class);
    assertThat(limit.inFlight()).isEqualTo(1);
  }
}
