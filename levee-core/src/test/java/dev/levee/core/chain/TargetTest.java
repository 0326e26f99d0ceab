package dev.levee.core.chain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TargetTest {

  @Test
  void aTargetIsParsedFromUpstreamSlashModel() {
    Target target = Target.parse("anthropic/claude-opus-4-6");

    assertThat(target).isEqualTo(new Target("anthropic", "claude-opus-4-6"));
    assertThat(target.id()).isEqualTo("anthropic/claude-opus-4-6");
  }

  @Test
  void theModelMayItselfContainSlashes() {
    assertThat(Target.parse("bedrock/us.anthropic/claude-v2").model()).isEqualTo("us.anthropic/claude-v2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"claude", "/claude", "anthropic/", ""})
  void aSpecWithoutBothPartsIsRefused(String spec) {
    assertThatThrownBy(() -> Target.parse(spec)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("upstream/model");
  }

  /** Regression: {@code chain: [up/a up/b]} (a comma forgotten) was taken as one target, model "a up/b". */
  @ParameterizedTest
  @ValueSource(strings = {"up/a up/b", "up/a,up/b", "up/a\tb"})
  void aSpecHoldingTwoTargetsIsRefused(String spec) {
    assertThatThrownBy(() -> Target.parse(spec)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("without spaces or commas").hasMessageContaining("[up/a, up/b]");
  }
}
