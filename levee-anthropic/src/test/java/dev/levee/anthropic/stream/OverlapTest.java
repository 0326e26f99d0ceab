package dev.levee.anthropic.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OverlapTest {

  @ParameterizedTest(name = "[{0}] + [{1}] words={2} -> {3}")
  @CsvSource(delimiter = '|', value = {
      "one two three four | three four five | true | 10",
      "one two three four | ' three four five' | true | 11",
      "one two three four | ' five' | true | 0",
      "in the | theory of | true | 0",
      "in the | the end | true | 3",
      "foo bar | ' baz' | false | 0",
      "'foo bar ' | ' baz' | false | 1",
      "'foo bar ' | ' baz' | true | 1",
      "count: 1 2 | ' 2 3' | false | 0",
      "'' | anything | true | 0",
      "abc | '' | true | 0",
      "Hello, world. | world. And | true | 6",
  })
  void trimsOnlyWholeRepeatedWordsOrWhitespace(String sent, String recovered, boolean words, int expected) {
    assertThat(Overlap.of(sent, recovered, words)).isEqualTo(expected);
  }
}
