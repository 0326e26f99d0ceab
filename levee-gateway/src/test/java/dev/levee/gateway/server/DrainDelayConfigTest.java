package dev.levee.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.gateway.config.ConfigException;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code server.drain-delay}: none by default (today's shutdown), read with its unit, never negative. */
class DrainDelayConfigTest {

  private static final String UPSTREAMS = "upstreams: { a: { url: https://api.anthropic.com } }\n";

  private static GatewayConfig parse(String server) throws ConfigException {
    return new ConfigLoader(name -> null).parse("server: { " + server + " }\n" + UPSTREAMS, "levee.yaml");
  }

  @Test
  void absentIsZeroSoTheListenerClosesAtOnceAsBefore() throws ConfigException {
    assertThat(parse("port: 0").server().drainDelay()).isEqualTo(Duration.ZERO);
    assertThat(new ConfigLoader(name -> null).parse(UPSTREAMS, "levee.yaml").server().drainDelay())
        .isEqualTo(Duration.ZERO);
  }

  @Test
  void readWithItsUnit() throws ConfigException {
    assertThat(parse("drain-delay: 5s").server().drainDelay()).isEqualTo(Duration.ofSeconds(5));
    assertThat(parse("drain-delay: 1500ms").server().drainDelay()).isEqualTo(Duration.ofMillis(1500));
  }

  /** Refused by the duration parser, as every duration key refuses a sign; the record's check backs it. */
  @Test
  void aNegativeDelayIsRefusedInOneLineNamingTheKey() {
    assertThatThrownBy(() -> parse("drain-delay: -5s")).isInstanceOf(ConfigException.class)
        .hasMessage("levee.yaml: line 1, column 24: server.drain-delay: a duration cannot be negative, got '-5s'");
  }

  @Test
  void aNegativeDelayBuiltInCodeIsRefusedToo() {
    assertThatThrownBy(() -> new GatewayConfig.Server(null, 0, null, null, null, null, null, null, null, null, null, null,
        Duration.ofSeconds(-1), null, null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("drain-delay must not be negative, was -1s");
  }
}
