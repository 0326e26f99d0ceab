package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.gateway.config.ConfigException;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code queue:} section as YAML: defaults, units, the secret from the environment, refusals. */
class QueueConfigTest {

  private static final String UPSTREAMS = "upstreams: { emu: { url: \"http://127.0.0.1:9\" } }\n";

  private static GatewayConfig parse(String queue, Map<String, String> env) throws ConfigException {
    return new ConfigLoader(env::get).parse(UPSTREAMS + queue, "test.yaml");
  }

  @Test
  void withoutTheSectionJobsGoToAnEmbeddedFile() throws Exception {
    QueueConfig queue = parse("", Map.of()).queue();

    assertThat(queue.store()).isEmpty();
    assertThat(queue.folder()).isEqualTo("levee-data");
    assertThat(queue.workers()).isEqualTo(8);
    assertThat(queue.batchTtl()).isEqualTo(Duration.ofHours(24));
    assertThat(queue.lease()).as("a dead gateway's jobs run again about a minute later").isEqualTo(Duration.ofSeconds(60));
    assertThat(queue.secret()).isEmpty();
    assertThat(queue.pacing()).isEqualTo(new PacingConfig(true, Duration.ofMillis(5), 1, Duration.ofSeconds(1)));
  }

  @Test
  void pacingIsReadWithUnitsAndCanBeSwitchedOff() throws Exception {
    PacingConfig pacing = parse("""
        queue:
          pacing: { yield-for: 2ms, shared-workers: 2, shared-for: 500ms }
        """, Map.of()).queue().pacing();
    PacingConfig off = parse("queue: { pacing: { enabled: false } }\n", Map.of()).queue().pacing();

    assertThat(pacing).isEqualTo(new PacingConfig(true, Duration.ofMillis(2), 2, Duration.ofMillis(500)));
    assertThat(off.enabled()).isFalse();
  }

  @Test
  void everyKeyIsReadWithUnitsAndTheSecretComesFromTheEnvironment() throws Exception {
    QueueConfig queue = parse("""
        features:
          reports: {}
        queue:
          store: "postgresql://127.0.0.1:5432/test?user=postgres&password=hunter2"
          schema: levee
          workers: 3
          poll: 250ms
          retry-delay: 2s
          lease: 5m
          batch-ttl: 1h
          secret: ${LEVEE_QUEUE_SECRET}
          on-outage: [reports]
          callbacks: { reports: "https://hooks.example/levee" }
          callback-secret: ${HOOK_SECRET}
        """, Map.of("LEVEE_QUEUE_SECRET", "c2VjcmV0LXNlY3JldC0xMg==", "HOOK_SECRET", "h")).queue();

    assertThat(queue.workers()).isEqualTo(3);
    assertThat(queue.poll()).isEqualTo(Duration.ofMillis(250));
    assertThat(queue.lease()).isEqualTo(Duration.ofMinutes(5));
    assertThat(queue.secret()).isEqualTo("c2VjcmV0LXNlY3JldC0xMg==");
    assertThat(queue.onOutage()).isEqualTo(List.of("reports"));
    assertThat(queue.callbackSecret()).isEqualTo("h");
    assertThat(queue.toString()).doesNotContain("hunter2").doesNotContain("c2VjcmV0").doesNotContain("hooks.example");
  }

  /** Regression (newcomer trial): a failed start printed {@code postgresql://levee:S3cretPW@…} whole. */
  @Test
  void aPasswordInTheStoreUrlIsNeverShownInAnyForm() throws Exception {
    QueueConfig userInfo = parse("queue: { store: \"postgresql://levee:S3cretPW@127.0.0.1:5999/nope\" }\n", Map.of()).queue();
    QueueConfig parameter = parse("queue: { store: \"postgresql://127.0.0.1:5999/nope?user=levee&password=S3cretPW&ssl=true\" }\n",
        Map.of()).queue();

    assertThat(userInfo.storeShown()).isEqualTo("postgresql://levee:…@127.0.0.1:5999/nope");
    assertThat(parameter.storeShown()).isEqualTo("postgresql://127.0.0.1:5999/nope?user=levee&password=…&ssl=true");
    assertThat(userInfo.toString() + parameter).doesNotContain("S3cretPW");
    assertThatThrownBy(() -> parse("queue: { store: \"postgresql://levee:S3c ret#PW@127.0.0.1/x\" }\n", Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("percent-encode").hasMessageNotContaining("S3c");
  }

  @Test
  void aStoreThatIsNotPostgresqlAndUnknownKeysAreRefused() {
    assertThatThrownBy(() -> parse("queue: { store: \"mysql://x\" }\n", Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("queue.store: store must be").hasMessageContaining("postgresql://");
    assertThatThrownBy(() -> parse("queue: { lease: 500ms }\n", Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lease must be at least 1s, was 500ms");
    assertThatThrownBy(() -> parse("queue: { retention: 30m }\n", Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("retention must be at least 1h, was 30m");
    assertThatThrownBy(() -> parse("queue: { workerz: 3 }\n", Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("unknown key 'workerz'");
    assertThatThrownBy(() -> parse("queue: { callbacks: { r: \"ftp://x\" } }\n", Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("callbacks.r");
  }

  @Test
  void aMalformedSecretIsRefusedBeforeAnythingIsSealed() {
    assertThatThrownBy(() -> KeySeal.of("not base64!")).hasMessageContaining("not base64");
    assertThatThrownBy(() -> KeySeal.of("c2hvcnQ=")).hasMessageContaining("16, 24 or 32 bytes");
    // regression (newcomer trial): was "levee serve: queue.secret is not base64", exit 1, no line
    assertThatThrownBy(() -> parse("features: {}\nqueue:\n  secret: \"not base64!\"\n", Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("line 4") // the secret's own line (QueueSecretLineRegressionTest)
        .hasMessageContaining("queue.secret: secret is not base64");
  }
}
