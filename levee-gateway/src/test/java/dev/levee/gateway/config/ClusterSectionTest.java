package dev.levee.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.gateway.cluster.ClusterConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code cluster:} section (issue 14): off when absent, parsed with its defaults, bad values named. */
class ClusterSectionTest {

  private static final String BASE = """
      upstreams:
        anthropic: { url: "https://api.anthropic.com" }
      """;

  private static GatewayConfig parse(String yaml) throws ConfigException {
    return new ConfigLoader(Map.of("REDIS_URL", "redis://10.0.0.7:6380")::get).parse(BASE + yaml, "levee.yaml");
  }

  @Test
  void noSectionMeansEveryReplicaKeepsItsOwnState() throws Exception {
    assertThat(parse("").cluster()).isEqualTo(ClusterConfig.OFF);
    assertThat(parse("").cluster().enabled()).isFalse();
  }

  @Test
  void aSectionTurnsSharingOnWithItsDefaults() throws Exception {
    ClusterConfig cluster = parse("cluster: { redis: \"${REDIS_URL}\", name: prod }\n").cluster();

    assertThat(cluster.enabled()).isTrue();
    assertThat(cluster.redis().getHost()).isEqualTo("10.0.0.7");
    assertThat(cluster.redis().getPort()).isEqualTo(6380);
    assertThat(cluster.prefix()).isEqualTo("levee:prod:");
    assertThat(cluster.commandTimeout()).isEqualTo(ClusterConfig.DEFAULT_COMMAND_TIMEOUT);
    assertThat(cluster.viewTtl()).isEqualTo(Duration.ofMillis(50));
  }

  @Test
  void timeoutsAreDurations() throws Exception {
    ClusterConfig cluster = parse("cluster: { redis: redis://127.0.0.1:6379, command-timeout: 10ms, view-ttl: 20ms }\n")
        .cluster();

    assertThat(cluster.name()).isEqualTo("levee");
    assertThat(cluster.commandTimeout()).isEqualTo(Duration.ofMillis(10));
    assertThat(cluster.viewTtl()).isEqualTo(Duration.ofMillis(20));
  }

  @Test
  void aUriThatIsNotRedisIsRefusedWithItsKey() throws Exception {
    assertThatThrownBy(() -> parse("cluster: { redis: \"http://127.0.0.1:6379\" }\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cluster")
        .hasMessageContaining("redis://");
  }

  @Test
  void anUnknownKeyIsNamed() throws Exception {
    assertThatThrownBy(() -> parse("cluster: { redis: redis://127.0.0.1:6379, nme: prod }\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("nme");
  }

  @Test
  void aSharedCacheNeedsACluster() throws Exception {
    assertThat(parse("cluster: { redis: redis://127.0.0.1:6379 }\ncache: { store: redis }\n").cache().shared()).isTrue();
    assertThat(parse("").cache().shared()).isFalse();
    assertThatThrownBy(() -> parse("cache: { store: redis }\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cluster");
    assertThatThrownBy(() -> parse("cache: { store: memcached }\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("local or redis");
  }

  @Test
  void aPasswordInTheUriIsNeverPrinted() throws Exception {
    GatewayConfig config = parse("cluster: { redis: \"redis://:s3cret@127.0.0.1:6379\" }\n");

    assertThat(config.cluster().toString()).doesNotContain("s3cret");
  }
}
