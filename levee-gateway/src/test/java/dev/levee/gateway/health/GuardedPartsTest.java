package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Stage 6's parts, each on its own: a part that throws skips no other, is counted each time and warned of once. */
class GuardedPartsTest {

  private final List<String> counted = new ArrayList<>();
  private final List<String> warned = new ArrayList<>();
  private final GuardedParts parts = new GuardedParts(counted::add, (part, e) -> warned.add(part + ": " + e.getMessage()));

  @Test
  void aPartThatThrowsSkipsNoOtherAndThrowsNothing() {
    List<String> ran = new ArrayList<>();

    assertThatCode(() -> {
      parts.run("first", () -> ran.add("first"));
      parts.run("broken", () -> {
        throw new IllegalStateException("a bug");
      });
      parts.run("last", () -> ran.add("last"));
    }).doesNotThrowAnyException();

    assertThat(ran).containsExactly("first", "last");
    assertThat(counted).containsExactly("broken");
    assertThat(warned).containsExactly("broken: a bug");
  }

  @Test
  void aPartFailingOnEveryRequestIsWarnedOfOnceAndCountedEachTime() {
    for (int request = 0; request < 1000; request++) {
      parts.run("cache_store", () -> {
        throw new UnsupportedOperationException("odd answer");
      });
      parts.run("trace", () -> { });
    }

    assertThat(warned).containsExactly("cache_store: odd answer");
    assertThat(counted).hasSize(1000).containsOnly("cache_store");
  }

  @Test
  void eachFailingPartIsWarnedOfOnceOnItsOwn() {
    for (int request = 0; request < 3; request++) {
      parts.run("metrics", () -> {
        throw new IllegalArgumentException("m");
      });
      parts.run("trace", () -> {
        throw new IllegalArgumentException("t");
      });
    }

    assertThat(warned).containsExactly("metrics: m", "trace: t");
  }

  @Test
  void aCounterOrALogThatThrowsStillLeavesThePartGuarded() {
    GuardedParts shaky = new GuardedParts(part -> {
      throw new IllegalStateException("registry closed");
    }, (part, e) -> {
      throw new IllegalStateException("appender broken");
    });

    assertThatCode(() -> shaky.run("metrics", () -> {
      throw new IllegalStateException("a bug");
    })).doesNotThrowAnyException();
  }

  @Test
  void anErrorIsNotThePartsAndGoesOn() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> parts.run("metrics", () -> {
      throw new OutOfMemoryError("heap");
    })).isInstanceOf(OutOfMemoryError.class);
    assertThat(counted).isEmpty();
  }
}
