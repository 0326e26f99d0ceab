package dev.levee.gateway.pipeline;

import dev.levee.gateway.health.Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per client request on the {@code levee.access} logger — what was asked, which target
 * answered after how many calls, in which tier, and why it failed when it did — and the same
 * outcome counted in {@link Metrics}. Never headers or bodies (they hold API keys and user data).
 */
final class AccessLog {

  private static final Logger LOG = LoggerFactory.getLogger("levee.access");

  private final Metrics metrics;

  AccessLog(Metrics metrics) {
    this.metrics = metrics;
  }

  /** A request refused at ingress (nothing was forwarded). */
  void refused(String id, String path, int status, long tookMillis, String errorType) {
    metrics.request("refused", null);
    if (LOG.isInfoEnabled()) {
      LOG.info("{} {} status={} ms={} outcome=refused {}", id, path, status, tookMillis, errorType);
    }
  }

  /**
   * @param outcome a word first (counted in metrics), then details for the log
   */
  void log(InboundRequest in, String alias, String tier, int status, String target, int calls, boolean fallback,
      long tookMillis, String outcome) {
    int space = outcome.indexOf(' ');
    metrics.request(space < 0 ? outcome : outcome.substring(0, space), tier);
    if (LOG.isInfoEnabled()) {
      LOG.info("{} {} model={} stream={} tier={} status={} target={} calls={} fallback={} ms={} outcome={}",
          in == null ? "-" : in.id(), in == null ? "-" : in.path(), alias, in != null && in.body().stream(),
          tier == null ? "-" : tier, status, target == null ? "-" : target, calls, fallback, tookMillis, outcome);
    }
  }
}
