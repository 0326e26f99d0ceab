package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Newcomer trial, bug 4: a fail-closed queued answer read {@code "…Last error: connection refused
 * The request was queued as job …"} — the error's last sentence had no full stop before the queue's.
 */
class QueuedMessageSeparatorRegressionTest {

  @Test
  void theErrorEndsAsASentenceBeforeTheQueuedJobIsNamed() {
    assertThat(OutageAnswer.queuedMessage("All targets failed. emu/x: 1 call. Last error: connection refused", "job_1"))
        .isEqualTo("All targets failed. emu/x: 1 call. Last error: connection refused. "
            + "The request was queued as job job_1; GET /v1/levee/jobs/job_1 returns its answer.");
    assertThat(OutageAnswer.queuedMessage("This feature is paused while the model is unavailable.", "job_2"))
        .startsWith("This feature is paused while the model is unavailable. The request was queued as job job_2;");
    assertThat(OutageAnswer.queuedMessage("", "job_3")).startsWith("The request was queued as job job_3;");
  }
}
