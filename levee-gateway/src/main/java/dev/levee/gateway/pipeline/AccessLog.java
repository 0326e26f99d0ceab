package dev.levee.gateway.pipeline;

import dev.levee.gateway.health.Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each {@link AccessRecord} as one line on the {@code levee.access} logger, and counts its
 * outcome and upstream calls in {@link Metrics}.
 */
final class AccessLog {

  private static final Logger LOG = LoggerFactory.getLogger("levee.access");

  private final Metrics metrics;

  AccessLog(Metrics metrics) {
    this.metrics = metrics;
  }

  void write(AccessRecord r) {
    if (r.refused()) {
      metrics.request("refused", null);
      if (LOG.isInfoEnabled()) {
        LOG.info("{} {} status={} ms={} outcome={}", r.id(), r.path(), r.status(), r.millis(), r.outcome());
      }
      return;
    }
    String tier = r.tier() == null ? null : r.tier().name();
    metrics.request(r.outcomeWord(), tier);
    metrics.upstreamCallsPerRequest(r.calls());
    String hedge = r.hedge();
    if (hedge != null) {
      metrics.hedge(hedge);
    }
    if (LOG.isInfoEnabled()) {
      LOG.info("{} {} model={} stream={} tier={}{} status={} target={} calls={} fallback={} ms={} outcome={}{}{}",
          r.id(), r.path(), r.alias(), r.stream(), tier == null ? "-" : tier,
          r.tierCause() == null ? "" : " cause=\"" + r.tierCause().replace('"', '\'') + "\"", r.status(),
          r.target() == null ? "-" : r.target().id(), r.calls(), r.fallback(), r.millis(), r.outcome(),
          hedge == null ? "" : " hedge=" + hedge + " attempts=" + r.attempts(),
          r.route() == null ? "" : " route=" + r.route());
    }
  }
}
