package dev.levee.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.config.ConfigException;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import org.junit.jupiter.api.Test;

/**
 * Server settings that are valid but most likely a mistake are named for a WARN at start
 * ({@link GatewayConfig.Server#doubtful()}). Newcomer trial: {@code header-timeout: 1ms} started
 * without a word and then answered 408 "request body too slow" to a client whose body came 300 ms
 * after its headers; {@code send-timeout: 30d} started without a word though {@code idle-timeout}
 * cuts a stalled client first.
 */
class DoubtfulServerSettingsTest {

  private static final String UPSTREAMS = "upstreams: { a: { url: https://api.anthropic.com } }\n";

  private static GatewayConfig.Server server(String server) throws ConfigException {
    return new ConfigLoader(name -> null).parse("server: { " + server + " }\n" + UPSTREAMS, "levee.yaml").server();
  }

  @Test
  void theDefaultsAreNotDoubtful() throws ConfigException {
    assertThat(server("port: 0").doubtful()).isEmpty();
    assertThat(server("header-timeout: 1s, send-timeout: 299s").doubtful()).isEmpty();
  }

  @Test
  void aHeaderTimeoutUnderASecondIsDoubtful() throws ConfigException {
    assertThat(server("header-timeout: 10ms").doubtful()).containsExactly("server.header-timeout is 10ms: a request "
        + "whose headers, or whose body's first bytes, take longer is answered 408 (the default is 10s)");
  }

  @Test
  void aSendTimeoutTheIdleTimeoutPreemptsIsDoubtful() throws ConfigException {
    assertThat(server("send-timeout: 30d").doubtful()).containsExactly("server.send-timeout (30d) is not below "
        + "server.idle-timeout (5m), which cuts a client that stopped reading first");
    assertThat(server("send-timeout: 60s, idle-timeout: 60s").doubtful()).hasSize(1);
  }
}
