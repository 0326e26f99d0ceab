package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: every metric the Grafana dashboard ({@code docs/grafana-dashboard.json}) and the
 * Prometheus rules ({@code docs/alerts.yaml}) query is on {@code /metrics} of a gateway that has
 * served a request, so a renamed metric breaks this test rather than a dashboard.
 */
class DashboardMetricsExistTest {

  private static final Pattern METRIC = Pattern.compile("\\b((?:levee|jvm|process|system)_[a-z0-9_]+)\\b");
  private static final Path DOCS = Path.of("..", "docs");

  @Test
  void everyMetricTheDashboardAndTheAlertsUseIsExposed() throws Exception {
    List<String> expressions = new ArrayList<>();
    collect(new ObjectMapper().readTree(DOCS.resolve("grafana-dashboard.json").toFile()), expressions);
    int fromDashboard = expressions.size();
    collect(new ObjectMapper(new YAMLFactory()).readTree(DOCS.resolve("alerts.yaml").toFile()), expressions);
    assertThat(fromDashboard).isGreaterThan(10);
    assertThat(expressions.size()).isGreaterThan(fromDashboard + 10);
    Set<String> used = new TreeSet<>();
    for (String expr : expressions) {
      Matcher m = METRIC.matcher(expr);
      while (m.find()) {
        used.add(m.group(1));
      }
    }
    assertThat(used).contains("levee_answers_total", "levee_tier", "levee_circuit_state", "levee_retry_budget_tokens",
        "levee_ttft_seconds_bucket", "levee_cost_usd_total", "levee_request_duration_seconds_count");

    String config = """
        models:
          smart:
            chain: [emu/emu-529, emu/claude-sonnet-4-5]
        """ + Harness.BASE_POLICY;
    try (Harness h = Harness.start(config)) {
      h.sdk.messages().create(Harness.params("smart", "dashboard"));
      // every name at once: the Recorder registers the cost before the access record's request meters
      // (levee_answers_total…), and a scrape on a loaded box can fall between the two
      Scrape scrape = new Scrape(h.awaitMetrics(text -> used.stream().allMatch(new Scrape(text)::has)));
      assertThat(used).allSatisfy(name -> assertThat(scrape.has(name)).as(name + " on /metrics").isTrue());
    }
  }

  /** Every {@code expr} string in the tree (Grafana targets and annotations, Prometheus rules). */
  private static void collect(JsonNode node, List<String> out) {
    if (node.isObject()) {
      node.properties().forEach(field -> {
        if (field.getKey().equals("expr") && field.getValue().isTextual()) {
          out.add(field.getValue().asText());
        } else {
          collect(field.getValue(), out);
        }
      });
    } else if (node.isArray()) {
      node.forEach(child -> collect(child, out));
    }
  }

  @Test
  void theDashboardIsValidGrafanaJsonWithPanelsForEachQuestion() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(Files.readString(DOCS.resolve("grafana-dashboard.json")));
    List<String> titles = new ArrayList<>();
    dashboard.path("panels").forEach(p -> titles.add(p.path("title").asText()));
    assertThat(titles).contains("Answers by source", "Tier by feature", "Circuit breakers", "Retry budget",
        "Time to first token p95", "Cost per hour by tier");
    assertThat(dashboard.path("uid").asText()).isEqualTo("levee-overview");
  }
}
