package dev.levee.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.anthropic.server.ServerLimits;
import dev.levee.gateway.config.ConfigException;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code server.send-timeout}: 60 s by default (nginx's {@code send_timeout}), read with its unit,
 * at least 1 s, and a bad value refused in one line naming the key.
 */
class SendTimeoutConfigTest {

  private static final String UPSTREAMS = "upstreams: { a: { url: https://api.anthropic.com } }\n";

  private static GatewayConfig parse(String server) throws ConfigException {
    return new ConfigLoader(name -> null).parse("server: { " + server + " }\n" + UPSTREAMS, "levee.yaml");
  }

  @Test
  void absentIsSixtySecondsAsNginx() throws ConfigException {
    assertThat(parse("port: 0").server().limits().sendTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(new ConfigLoader(name -> null).parse(UPSTREAMS, "levee.yaml").server().limits().sendTimeout())
        .isEqualTo(Duration.ofSeconds(60));
    assertThat(ServerLimits.DEFAULT.sendTimeout()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void readWithItsUnitAndKeptByAnotherPort() throws ConfigException {
    assertThat(parse("send-timeout: 1s").server().limits().sendTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(parse("send-timeout: 2m").server().limits().sendTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(parse("send-timeout: 1500ms").withPort(9090).server().limits().sendTimeout())
        .isEqualTo(Duration.ofMillis(1500));
  }

  @Test
  void aValueThatIsNoDurationIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> parse("send-timeout: soon")).isInstanceOf(ConfigException.class)
        .hasMessage("levee.yaml: line 1, column 25: server.send-timeout: expected a duration such as 500ms, 30s, 2m, 1h, 7d or 1h30m,"
            + " got 'soon'");
  }

  @Test
  void belowOneSecondIsRefusedNamingTheKeyAndTheValueAsWritten() {
    assertThatThrownBy(() -> parse("send-timeout: 500ms")).isInstanceOf(ConfigException.class)
        .hasMessage("levee.yaml: line 1, column 25: server.send-timeout: send-timeout must be at least 1s, was 500ms");
    assertThatThrownBy(() -> parse("send-timeout: 0s")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("send-timeout must be at least 1s, was 0s");
  }

  @Test
  void theServerLimitsRefuseItBelowOneSecondToo() {
    assertThatThrownBy(() -> ServerLimits.DEFAULT.withSendTimeout(Duration.ofMillis(999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("send-timeout must be at least 1s, was 999ms");
  }

  /** Regression (session 23): the other server durations' refusals said {@code PT0S}, as Java prints a duration. */
  @Test
  void theOtherServerDurationsAreQuotedAsWrittenToo() {
    assertThatThrownBy(() -> parse("header-timeout: 0s")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("server.header-timeout:").hasMessageEndingWith("was 0s");
  }
}
