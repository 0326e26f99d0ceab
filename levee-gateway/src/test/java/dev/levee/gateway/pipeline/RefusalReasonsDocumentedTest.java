package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.error.RefusalReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The access log's {@code refusal=} codes are a closed set an operator reads from the docs: the
 * table in docs/gateway.md ("Why a request was refused") lists each code once, and no other.
 */
class RefusalReasonsDocumentedTest {

  private static final Pattern ROW = Pattern.compile("^\\| `([a-z0-9_]+)` \\| [0-9x]{3} \\|", Pattern.MULTILINE);

  @Test
  void theDocsTableListsEveryCodeAndNoOther() throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "gateway.md"));
    String section = docs.substring(docs.indexOf("### Why a request was refused"), docs.indexOf("## Overhead"));
    Matcher rows = ROW.matcher(section);
    List<String> listed = new ArrayList<>();
    while (rows.find()) {
      listed.add(rows.group(1));
    }

    assertThat(listed).containsExactlyInAnyOrderElementsOf(
        Arrays.stream(RefusalReason.values()).map(RefusalReason::code).collect(Collectors.toList()));
  }

  @Test
  void everyCodeIsSnakeCase() {
    assertThat(RefusalReason.values()).allSatisfy(r -> assertThat(r.code()).matches("[a-z][a-z0-9]*(_[a-z0-9]+)*"));
  }
}
