package dev.levee.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.cli.report.Chart;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression: the demo report shaded the incident about a second after the phases its header and
 * lead named ("full outage 1-6s" drawn from 1.6 s to 6.6 s; "4-19s" drawn from 4.8 s to 19.8 s at
 * the default length): the incident started inside a second and the description cut the
 * fraction off. The phases now start on whole seconds, and the bands, the description and the
 * per-second buckets share the same edges.
 */
class IncidentBandRegressionTest {

  @Test
  void theBandsStartAndEndOnTheSecondsTheDescriptionNames() {
    List<Chart.Band> bands = DemoReport.bands(Incident.of(World.PRIMARY, Duration.ofSeconds(60), 7), 60);

    assertThat(bands).extracting(Chart.Band::from).containsExactly(5.0, 20.0);
    assertThat(bands).extracting(Chart.Band::to).containsExactly(20.0, 40.0);
    assertThat(Incident.describe(Duration.ofSeconds(60)))
        .contains("healthy 0-5s", "full outage 5-20s", "partial overload 20-40s", "recovered 40-60s");
  }

  @Test
  void aShortDemoKeepsAHealthyFirstSecondAndWholeSecondEdges() {
    List<Chart.Band> bands = DemoReport.bands(Incident.of(World.PRIMARY, Duration.ofSeconds(20), 7), 20);

    assertThat(bands).extracting(Chart.Band::from).containsExactly(2.0, 7.0);
    assertThat(bands).extracting(Chart.Band::to).containsExactly(7.0, 13.0);
    assertThat(Incident.describe(Duration.ofSeconds(20))).contains("healthy 0-2s", "full outage 2-7s");
    assertThat(DemoReport.bands(Incident.of(World.PRIMARY, Duration.ofSeconds(5), 7), 5))
        .extracting(Chart.Band::from).containsExactly(1.0, 2.0);
  }
}
