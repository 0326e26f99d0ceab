package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which streams take a thread of their own: only those beyond the first {@link StreamsInFlight#SHARED_UP_TO} in flight. */
class StreamsInFlightTest {

  private final StreamsInFlight streams = new StreamsInFlight();

  @Test
  void aFewStreamsStayOnTheHandlersThread() {
    for (int i = 0; i < StreamsInFlight.SHARED_UP_TO; i++) {
      assertThat(streams.enter()).as("stream %d", i + 1).isFalse();
    }
  }

  @Test
  void streamsBeyondTheFewTakeAThreadOfTheirOwn() {
    for (int i = 0; i < StreamsInFlight.SHARED_UP_TO; i++) {
      streams.enter();
    }
    assertThat(streams.enter()).isTrue();
    assertThat(streams.enter()).isTrue();
  }

  @Test
  void anEndedStreamMakesRoomOnTheHandlersThreadAgain() {
    for (int i = 0; i <= StreamsInFlight.SHARED_UP_TO; i++) {
      streams.enter();
    }
    streams.exit();
    streams.exit();
    assertThat(streams.enter()).isFalse();
    assertThat(streams.enter()).isTrue();
  }
}
