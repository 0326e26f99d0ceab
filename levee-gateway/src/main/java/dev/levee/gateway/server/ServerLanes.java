package dev.levee.gateway.server;

import dev.levee.anthropic.server.RequestGuard;

/**
 * The gateway's control lane: {@code /health}, {@code /health/ready}, {@code /health/live}, {@code
 * /metrics} and {@code /admin/*} pass the
 * {@link RequestGuard} unlimited, so they answer while API traffic is at its limits or stuck;
 * {@code /health} answers 503 {@code shutting_down} once a shutdown has begun (load balancers
 * stop sending). Everything else — {@code /v1/*} — is admitted against {@code
 * server.max-concurrent} and {@code server.max-concurrent-per-tenant}.
 */
public final class ServerLanes {

  /** The gateway's lanes. */
  public static final RequestGuard.Lanes GATEWAY = new RequestGuard.Lanes(
      path -> path.equals("/health") || path.startsWith("/health/") || path.equals("/metrics")
          || path.startsWith("/admin/"), "/health");

  private ServerLanes() {}
}
