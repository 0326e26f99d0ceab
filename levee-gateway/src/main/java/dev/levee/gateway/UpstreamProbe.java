package dev.levee.gateway;

import dev.levee.gateway.config.GatewayConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a starting gateway says of its upstreams: where each one is, and whether it takes a TCP
 * connection. Nothing else tells an operator that an upstream's URL is wrong before the first
 * request fails (a gateway is ready whatever its upstreams do: its fallbacks, cache and queue serve
 * through their outages), nor which of two emulators on one machine a gateway talks to. A probe
 * opens a connection and closes it: no request is sent, no key. Addresses are shown without
 * user information ({@code user:password@}).
 */
final class UpstreamProbe {

  private UpstreamProbe() {}

  /** One line naming each upstream and its address: {@code upstreams: emu http://127.0.0.1:9010, …}. */
  static String where(Map<String, GatewayConfig.Upstream> upstreams) {
    List<String> each = new ArrayList<>();
    upstreams.forEach((name, upstream) -> each.add(name + " " + shown(upstream.url())));
    return "upstreams: " + String.join(", ", each);
  }

  /**
   * Tries a TCP connection to each upstream, at most {@code timeout} each.
   *
   * @return one sentence per upstream that refused or did not answer in time; empty when all took one
   */
  static List<String> unreachable(Map<String, GatewayConfig.Upstream> upstreams, Duration timeout) {
    List<String> warnings = new ArrayList<>();
    upstreams.forEach((name, upstream) -> {
      URI url = upstream.url();
      int port = url.getPort() >= 0 ? url.getPort() : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(url.getHost(), port), (int) Math.max(1, timeout.toMillis()));
      } catch (IOException | IllegalArgumentException e) {
        warnings.add("upstream " + name + " (" + shown(url) + ") took no connection at start (" + e.getMessage()
            + "): requests to its targets fail until it does; check upstreams." + name + ".url");
      }
    });
    return warnings;
  }

  private static String shown(URI url) {
    return url.getScheme() + "://" + url.getHost() + (url.getPort() >= 0 ? ":" + url.getPort() : "")
        + (url.getRawPath() == null ? "" : url.getRawPath());
  }
}
