package dev.levee.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.anthropic.server.ServerLimits;
import dev.levee.gateway.config.ConfigException;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The {@code server.*} limit keys: defaults, units, and refusals that name the key. */
class ServerKeysTest {

  private static final String UPSTREAMS = "upstreams: { a: { url: https://api.anthropic.com } }\n";

  private static GatewayConfig parse(String server) throws ConfigException {
    return new ConfigLoader(name -> null).parse("server: { " + server + " }\n" + UPSTREAMS, "levee.yaml");
  }

  @Test
  void absentKeysTakeTheDocumentedDefaults() throws ConfigException {
    assertThat(parse("port: 0").server().limits()).isEqualTo(ServerLimits.DEFAULT);
  }

  @Test
  void everyKeyIsReadWithItsUnit() throws ConfigException {
    ServerLimits limits = parse("max-connections: 500, accept-queue: 64, header-timeout: 2s, min-body-rate: 4KiB, "
        + "max-concurrent: 100, max-concurrent-per-tenant: 10, shutdown-grace: 5s, max-body: 1MiB, send-timeout: 90s")
        .server().limits();

    assertThat(limits).isEqualTo(new ServerLimits(500, 64, Duration.ofSeconds(2), 4096, 100, 10, Duration.ofSeconds(5),
        1 << 20, Duration.ofSeconds(90)));
  }

  @Test
  void aSmallTotalLimitAlsoBoundsTheDefaultTenantLimit() throws ConfigException {
    assertThat(parse("max-concurrent: 100").server().limits().maxConcurrentPerTenant()).isEqualTo(100);
  }

  @Test
  void outOfRangeValuesAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> parse("max-concurrent: 0")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("max-concurrent");
    assertThatThrownBy(() -> parse("header-timeout: 0s")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("header-timeout");
  }
}
