package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * An operator's trial (session 20): {@code authorization: bearer <admin.token>} got 401 where
 * {@code Bearer} passed, but an authentication scheme's name is case-insensitive (RFC 9110
 * §11.1), and so did one more space before the token (§11.4 allows one or more). Any case of the
 * scheme and any run of spaces now pass with the right token; the token itself stays exact.
 */
class AdminBearerSchemeCaseRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\nadmin:\n  token: drill-token\n"
      + Harness.BASE_POLICY;

  @Test
  void theSchemeIsReadInAnyCaseAndTheTokenExactly() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      for (String scheme : new String[] {"Bearer", "bearer", "BEARER"}) {
        assertThat(tiers(h, scheme + " drill-token").statusCode()).as(scheme).isEqualTo(200);
      }
      assertThat(tiers(h, "bearer  drill-token").statusCode()).as("one or more spaces").isEqualTo(200);
      assertThat(tiers(h, "Bearer DRILL-TOKEN").statusCode()).as("the token is exact").isEqualTo(401);
      assertThat(tiers(h, "Basic drill-token").statusCode()).isEqualTo(401);
      assertThat(tiers(h, "bearer").statusCode()).isEqualTo(401);
    }
  }

  private static HttpResponse<String> tiers(Harness h, String authorization) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/admin/tiers"))
          .header("authorization", authorization).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
