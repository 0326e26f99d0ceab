package dev.levee.gateway.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.route.Preference;
import dev.levee.core.route.RouteRequest;
import dev.levee.core.route.TaskType;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The routing headers: values, defaults, and a 400 naming the header for a bad one. */
class RouteHintsTest {

  private final Map<String, String> headers = new HashMap<>();
  private final RouteDefaults defaults = new RouteDefaults("code", Duration.ofSeconds(5), "balanced");

  private RouteHints.Result read() {
    return RouteHints.read(headers::get, defaults, 2000);
  }

  @Test
  void headersStateTaskBudgetAndPreference() {
    headers.put("x-levee-task", "Simple");
    headers.put("x-levee-latency-budget", "1500ms");
    headers.put("x-levee-prefer", "cost");

    assertThat(read()).isEqualTo(new RouteHints.Valid(
        new RouteRequest(TaskType.SIMPLE, 2000, Duration.ofMillis(1500), Preference.COST)));
  }

  @Test
  void aBareNumberIsMillisecondsAndAbsentHeadersTakeTheAliasDefaults() {
    headers.put("x-levee-latency-budget", "1000");

    assertThat(read()).isEqualTo(new RouteHints.Valid(
        new RouteRequest(TaskType.CODE, 2000, Duration.ofSeconds(1), Preference.BALANCED)));
    assertThat(RouteHints.read(name -> null, RouteDefaults.DEFAULT, 0)).isEqualTo(new RouteHints.Valid(
        new RouteRequest(TaskType.COMPLEX, 0, Duration.ofSeconds(5), Preference.BALANCED)));
  }

  @Test
  void aBadValueIsAnInvalidRequestNamingTheHeader() {
    headers.put("x-levee-task", "poetry\u0007");
    RouteHints.Invalid task = (RouteHints.Invalid) read();
    assertThat(task.error().status()).isEqualTo(400);
    assertThat(task.error().type()).isEqualTo("invalid_request_error");
    assertThat(task.error().message()).startsWith("x-levee-task:").contains("'poetry?'");

    headers.clear();
    headers.put("x-levee-prefer", "fast");
    assertThat(((RouteHints.Invalid) read()).error().message()).startsWith("x-levee-prefer:");

    for (String budget : new String[] {"0", "-5s", "soon", "11m", "99999999999999999999"}) {
      headers.clear();
      headers.put("x-levee-latency-budget", budget);
      assertThat(read()).as(budget).isInstanceOf(RouteHints.Invalid.class);
      assertThat(((RouteHints.Invalid) read()).error().message()).startsWith("x-levee-latency-budget:");
    }
  }

  @Test
  void inputTokensAreEstimatedAtFourBytesEach() {
    assertThat(InputTokens.estimate(0)).isZero();
    assertThat(InputTokens.estimate(1)).isEqualTo(1);
    assertThat(InputTokens.estimate(8000)).isEqualTo(2000);
    assertThat(InputTokens.estimate(8001)).isEqualTo(2001);
  }
}
