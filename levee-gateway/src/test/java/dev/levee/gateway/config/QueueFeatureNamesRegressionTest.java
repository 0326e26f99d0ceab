package dev.levee.gateway.config;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 4 newcomer trial): {@code queue.on-outage: [default other]} (a comma
 * forgotten) was taken as one feature named {@code "default other"}, and a feature that is not
 * configured was accepted: nothing was ever queued and nothing said why. Such a name is now refused.
 */
class QueueFeatureNamesRegressionTest {

  private static final String BASE = """
      upstreams:
        up: { url: "http://127.0.0.1:1" }
      models:
        fast: { chain: [up/claude-fast] }
      features:
        summaries: { priority: optional }
      """;

  private static void parse(String yaml) throws ConfigException {
    new ConfigLoader(Map.<String, String>of()::get).parse(yaml, "levee.yaml");
  }

  @Test
  void aForgottenCommaIsNotOneFeature() {
    assertThatThrownBy(() -> parse(BASE + "queue:\n  on-outage: [default summaries]\n"))
        .hasMessage("levee.yaml: line 8, column 3: queue.on-outage: queue.on-outage names 'default summaries', which is"
            + " not a feature (features: default, summaries); several are written [a, b]");
  }

  @Test
  void aFeatureThatIsNotConfiguredIsRefused() {
    assertThatThrownBy(() -> parse(BASE + "queue:\n  callbacks: { reports: \"http://127.0.0.1:1/done\" }\n"))
        .hasMessageContaining("queue.callbacks names 'reports', which is not a feature (features: default, summaries)");
  }

  @Test
  void configuredFeaturesAndDefaultAreAccepted() {
    assertThatCode(() -> parse(BASE + "queue:\n  on-outage: [default, summaries]\n")).doesNotThrowAnyException();
  }
}
