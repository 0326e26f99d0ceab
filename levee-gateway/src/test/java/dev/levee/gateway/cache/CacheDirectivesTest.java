package dev.levee.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CacheDirectivesTest {

  @ParameterizedTest(name = "[{index}] {0}: {1}")
  @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
      # header      | value                    | may serve | may store
        -             | -                        | true      | true
        cache-control | no-store                 | false     | false
        Cache-Control | No-Store                 | false     | false
        cache-control | no-cache                 | false     | true
        cache-control | max-age=0                | false     | true
        cache-control | max-age=60               | true      | true
        cache-control | private, no-cache        | false     | true
        cache-control | no-transform , no-store  | false     | false
        pragma        | no-cache                 | false     | true
        cache-control | no-storey                | true      | true
      """)
  void readsTheRequestDirectives(String header, String value, boolean mayServe, boolean mayStore) {
    Map<String, List<String>> headers = header == null ? Map.of() : Map.of(header, List.of(value));

    CacheDirectives directives = CacheDirectives.of(headers);

    assertThat(directives.mayServe()).isEqualTo(mayServe);
    assertThat(directives.mayStore()).isEqualTo(mayStore);
  }

  @org.junit.jupiter.api.Test
  void repeatedHeadersAreAllRead() {
    CacheDirectives directives = CacheDirectives.of(Map.of("cache-control", List.of("max-age=60", "no-store")));

    assertThat(directives).isEqualTo(new CacheDirectives(true, false));
  }
}
