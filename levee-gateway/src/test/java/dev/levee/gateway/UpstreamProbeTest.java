package dev.levee.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.config.GatewayConfig;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A newcomer's gateway sent its traffic to another session's emulator on the default port, and one
 * pointed at a closed port said it was listening and ready until its first request failed: the start
 * line now names each upstream's address, and one that takes no connection is warned of.
 */
class UpstreamProbeTest {

  @Test
  void anUpstreamThatTakesNoConnectionIsNamedWithItsAddressAndNoUserInformation() throws Exception {
    int closed;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = probe.getLocalPort(); // free once closed: nothing listens there
    }
    try (ServerSocket listening = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Map<String, GatewayConfig.Upstream> upstreams = new LinkedHashMap<>();
      upstreams.put("up", upstream("http://127.0.0.1:" + listening.getLocalPort()));
      upstreams.put("down", upstream("http://user:secret@127.0.0.1:" + closed + "/base"));

      assertThat(UpstreamProbe.where(upstreams)).isEqualTo("upstreams: up http://127.0.0.1:" + listening.getLocalPort()
          + ", down http://127.0.0.1:" + closed + "/base");
      assertThat(UpstreamProbe.unreachable(upstreams, Duration.ofSeconds(2))).singleElement().asString()
          .startsWith("upstream down (http://127.0.0.1:" + closed + "/base) took no connection at start")
          .endsWith("check upstreams.down.url").doesNotContain("secret");
    }
  }

  private static GatewayConfig.Upstream upstream(String url) {
    return new GatewayConfig.Upstream(URI.create(url), "", Duration.ofSeconds(1));
  }
}
