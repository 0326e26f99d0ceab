package dev.levee.gateway.pipeline;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per client request on the {@code levee.access} logger: what was asked, which target
 * answered after how many calls, and why it failed when it did. Never headers or bodies (they
 * hold API keys and user data).
 */
final class AccessLog {

  private static final Logger LOG = LoggerFactory.getLogger("levee.access");

  private AccessLog() {}

  static void log(InboundRequest in, String alias, int status, String target, int calls, boolean fallback,
      long tookMillis, String outcome) {
    if (LOG.isInfoEnabled()) {
      LOG.info("{} {} model={} stream={} status={} target={} calls={} fallback={} ms={} outcome={}",
          in == null ? "-" : in.id(), in == null ? "-" : in.path(), alias,
          in != null && in.body().stream(), status, target == null ? "-" : target, calls, fallback, tookMillis, outcome);
    }
  }
}
