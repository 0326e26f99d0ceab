package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClusterConfigTest {

  @Test
  void offByDefault() {
    assertThat(ClusterConfig.OFF.enabled()).isFalse();
    assertThat(ClusterConfig.OFF.toString()).isEqualTo("ClusterConfig[off]");
    assertThatThrownBy(() -> new RedisLink(ClusterConfig.OFF, () -> 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no cluster.redis");
  }

  @Test
  void defaultsAndPrefix() {
    ClusterConfig config = ClusterConfig.of("redis://127.0.0.1:6379", "prod");
    assertThat(config.enabled()).isTrue();
    assertThat(config.commandTimeout()).isEqualTo(Duration.ofMillis(100));
    assertThat(config.viewTtl()).isEqualTo(Duration.ofMillis(50));
    assertThat(config.prefix()).isEqualTo("levee:prod:");
    assertThat(new ClusterConfig(URI.create("redis://h:1"), null, null, null).name()).isEqualTo("levee");
  }

  @Test
  void badValuesAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> ClusterConfig.of("http://127.0.0.1:6379", "prod"))
        .hasMessageContaining("cluster.redis must be a redis:// or rediss:// URI");
    assertThatThrownBy(() -> ClusterConfig.of("redis://127.0.0.1:6379", "pr od"))
        .hasMessageContaining("cluster.name");
    assertThatThrownBy(() -> ClusterConfig.of("redis://127.0.0.1:6379", "prod").withTimeouts(Duration.ofSeconds(5), Duration.ofMillis(50)))
        .hasMessageContaining("cluster.command-timeout must be above 0 and at most 1s");
    assertThatThrownBy(() -> ClusterConfig.of("redis://127.0.0.1:6379", "prod").withTimeouts(Duration.ofMillis(30), Duration.ZERO))
        .hasMessageContaining("cluster.view-ttl");
  }

  @Test
  void aPasswordInTheUriIsNeverPrinted() {
    ClusterConfig config = ClusterConfig.of("redis://:s3cret@127.0.0.1:6379", "prod");
    assertThat(config.toString()).doesNotContain("s3cret").contains("127.0.0.1:6379");
  }
}
