package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/**
 * A server's one sweeping thread ({@link ConnectionSweeper}): the header deadline and the send
 * timeout share it, it sweeps as often as the shorter timeout needs, and it ends when the server
 * stops (before, each deadline started a thread of its own).
 */
class ConnectionSweeperTest {

  @Test
  void theSweepIsAQuarterOfTheShorterTimeoutAtMostASecond() {
    assertThat(ConnectionSweeper.period(Duration.ofSeconds(10), Duration.ofSeconds(60))).as("the defaults")
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(ConnectionSweeper.period(Duration.ofSeconds(10), Duration.ofSeconds(2))).isEqualTo(Duration.ofMillis(500));
    assertThat(ConnectionSweeper.period(Duration.ofMillis(300), Duration.ofSeconds(60))).isEqualTo(Duration.ofMillis(75));
    assertThat(ConnectionSweeper.period(Duration.ofMillis(20), Duration.ofSeconds(1))).as("at least 10 ms")
        .isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void oneThreadSweepsForBothDeadlinesAndEndsWhenTheServerStops() throws Exception {
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofMinutes(5), "sweeper-test",
        new Handler.Abstract() {
          @Override
          public boolean handle(org.eclipse.jetty.server.Request request, org.eclipse.jetty.server.Response response,
              org.eclipse.jetty.util.Callback callback) {
            callback.succeeded();
            return true;
          }
        });
    server.start();
    List<Thread> sweepers;
    try {
      sweepers = Thread.getAllStackTraces().keySet().stream()
          .filter(thread -> thread.getName().startsWith("sweeper-test-sweeper"))
          .toList();
      assertThat(sweepers).as("one sweeping thread for the server").hasSize(1);
    } finally {
      server.stop();
    }

    Thread sweeper = sweepers.getFirst();
    sweeper.join(Duration.ofSeconds(10));
    assertThat(sweeper.isAlive()).as("the sweeping thread ended with the server").isFalse();
  }

  /**
   * Regression: a sweep that threw (an {@link Error}, or a check's {@code begin}) escaped to the
   * scheduler, which cancels a periodic task that throws, silently: both deadlines stopped for good.
   */
  @Test
  void aSweepThatThrowsLeavesTheNextSweepScheduled() {
    int[] begun = {0};
    ConnectionSweeper.Check failingOnce = new ConnectionSweeper.Check() {
      @Override
      public void begin(long now) {
        if (begun[0]++ == 0) {
          throw new AssertionError("a bug in a check");
        }
      }

      @Override
      public void check(org.eclipse.jetty.io.EndPoint endPoint) {}

      @Override
      public void end() {}
    };
    Server server = new Server();
    ConnectionSweeper sweeper = new ConnectionSweeper("sweeper-test", new ServerConnector(server), () -> 0L,
        Duration.ofSeconds(1), failingOnce);

    sweeper.sweepOrWarn(); // what the scheduler runs: had it thrown, the scheduler would have cancelled the task
    sweeper.sweepOrWarn();

    assertThat(begun[0]).as("both sweeps ran").isEqualTo(2);
  }
}
