package dev.levee.gateway.work;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): with {@code queue.secret} unset and an upstream without a key of its
 * own, nothing was said at start-up; the first batch got a 500. The gateway now warns at start,
 * naming the aliases, what is refused and how to set the secret.
 */
class QueueSecretWarningRegressionTest {

  @Test
  void anUnsetSecretWithAliasesThatForwardTheClientsKeyIsWarnedAboutAtStart() {
    String warning = QueuedWork.secretWarning(false, List.of("chat"), Set.of("reports")).orElseThrow();

    assertThat(warning).contains("queue.secret is not set").contains("chat").contains("Message Batches")
        .contains("[reports]").contains("head -c 32 /dev/urandom | base64").contains("LEVEE_QUEUE_SECRET");
  }

  @Test
  void nothingIsSaidWhenTheSecretIsSetOrNoAliasNeedsAKeyKept() {
    assertThat(QueuedWork.secretWarning(true, List.of("chat"), Set.of())).isEmpty();
    assertThat(QueuedWork.secretWarning(false, List.of(), Set.of("reports"))).isEmpty();
  }
}
