package dev.levee.gateway.pipeline;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each {@link AccessRecord} as one line on the {@code levee.access} logger (the {@link
 * Recorder} counts it in metrics).
 */
final class AccessLog {

  private static final Logger LOG = LoggerFactory.getLogger("levee.access");

  void write(AccessRecord r) {
    if (r.refused()) {
      if (LOG.isInfoEnabled()) {
        LOG.info("{} {} {} status={} ms={} outcome={}{}", r.id(), r.method(), r.path(), r.status(), r.millis(),
            r.outcome(), r.refusal() == null ? "" : " refusal=" + r.refusal().code());
      }
      return;
    }
    String tier = r.tier() == null ? null : r.tier().name();
    String hedge = r.hedge();
    if (LOG.isInfoEnabled()) {
      LOG.info("{} {} {} model={} stream={} tier={}{} status={} target={} calls={} fallback={} ms={} outcome={}{}{}{}",
          r.id(), r.method(), r.path(), r.alias(), r.stream(), tier == null ? "-" : tier,
          r.tierCause() == null ? "" : " cause=\"" + r.tierCause().replace('"', '\'') + "\"", r.status(),
          r.target() == null ? "-" : r.target().id(), r.calls(), r.fallback(), r.millis(), r.outcome(),
          hedge == null ? "" : " hedge=" + hedge + " attempts=" + r.attempts(),
          r.route() == null ? "" : " route=" + r.route(), reason(r));
    }
  }

  /**
   * {@code  reason="…"} of an answer that came after retries, a fallback or a hedge: the words of
   * its {@code x-levee-reason} ({@link AccessRecord#reason()}), quoted as {@code cause} is ({@code "}
   * becomes {@code '}, and a control character {@code ?}, so the line stays one line); empty
   * otherwise. Target ids and error types only: never a key or a body.
   */
  static String reason(AccessRecord r) {
    String reason = r.reason();
    if (reason == null) {
      return "";
    }
    StringBuilder quoted = new StringBuilder(reason.length() + 10).append(" reason=\"");
    reason.chars().forEach(c -> quoted.append(c == '"' ? '\'' : Character.isISOControl(c) ? '?' : (char) c));
    return quoted.append('"').toString();
  }
}
