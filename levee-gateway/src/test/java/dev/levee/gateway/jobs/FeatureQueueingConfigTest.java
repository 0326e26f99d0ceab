package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.gateway.config.ConfigException;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.config.OnOutage;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code features.<name>.on-outage}, {@code queued-text}, {@code callback-url}, {@code immediate-priority}. */
class FeatureQueueingConfigTest {

  private static GatewayConfig parse(String features) throws ConfigException {
    return new ConfigLoader(Map.<String, String>of()::get).parse(
        "upstreams: { emu: { url: \"http://127.0.0.1:9\" } }\nfeatures:\n" + features, "test.yaml");
  }

  @Test
  void theKeysLoadAndDefaultToOff() throws ConfigException {
    GatewayConfig config = parse("""
          reports: { on-outage: queue, queued-text: "Later: {job}", callback-url: "https://hooks.example/levee",
                     immediate-priority: 4, priority: critical }
          chat: {}
        """);
    Feature reports = config.feature("reports");
    Feature chat = config.feature("chat");

    assertThat(reports.onOutage()).isEqualTo(OnOutage.QUEUE);
    assertThat(reports.queues()).isTrue();
    assertThat(reports.queuedText()).isEqualTo("Later: {job}");
    assertThat(reports.callbackUrl()).isEqualTo("https://hooks.example/levee");
    assertThat(reports.immediatePriority()).isEqualTo(4);
    assertThat(reports.queuePriority()).isEqualTo(8);
    assertThat(chat.queues()).isFalse();
    assertThat(chat.immediatePriority()).isEqualTo(Feature.DEFAULT_IMMEDIATE_PRIORITY);
    assertThat(chat.queuedText()).contains("{job}");
    assertThat(chat.callbackUrl()).isNull();
    assertThat(chat.queuePriority()).isEqualTo(5);
  }

  @Test
  void badValuesAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> parse("  reports: { on-outage: later }\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("on-outage");
    assertThatThrownBy(() -> parse("  reports: { callback-url: \"ftp://hooks.example\" }\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("callback-url");
    assertThatThrownBy(() -> parse("  reports: { immediate-priority: 11 }\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("immediate-priority");
  }
}
