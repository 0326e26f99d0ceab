package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.core.time.ManualClock;
import java.lang.ref.WeakReference;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.server.Request;
import org.junit.jupiter.api.Test;

/**
 * Issue 11: a stream that waits for its upstream with no thread lets its thread end, and a fresh
 * one goes on once bytes arrive; but its cancellation scope kept the ended thread (to interrupt it
 * when the client leaves) until the next one registered, and with it the thread's task: the
 * request's stages and everything they captured, for every stream waiting. Jetty's thread, which
 * hands a stream to its own, was kept the same way.
 */
class EndedStreamThreadRegressionTest {

  private final ManualClock clock = new ManualClock();
  private final LateWatches watches = new LateWatches(new Watchdog(clock, clock), clock);

  /** A Jetty request that only takes a failure listener (all a scope asks of it). */
  private static Request request() {
    return (Request) Proxy.newProxyInstance(Request.class.getClassLoader(), new Class<?>[] {Request.class},
        (proxy, method, args) -> null);
  }

  @Test
  void aScopeKeepsNoReferenceToTheThreadsThatLetGoOfIt() throws Exception {
    CancellationScope[] scope = new CancellationScope[1];
    Thread jetty = Thread.ofVirtual().start(() -> {
      scope[0] = CancellationScope.open(request(), watches);
      scope[0].letGoOfCurrentThread(); // handed to the stream's own thread
    });
    jetty.join();
    Thread relay = Thread.ofVirtual().start(() -> {
      scope[0].interruptCurrentThread();
      scope[0].letGoOfCurrentThread(); // the stream now waits with no thread
    });
    relay.join();
    WeakReference<Thread> endedJetty = new WeakReference<>(jetty);
    WeakReference<Thread> endedRelay = new WeakReference<>(relay);
    jetty = null;
    relay = null;

    for (int i = 0; i < 10 && (endedJetty.get() != null || endedRelay.get() != null); i++) {
      System.gc(); // a full collection with the JDK's default G1: the scope is all that could still hold them
    }

    assertThat(endedJetty.get()).as("Jetty's ended thread").isNull();
    assertThat(endedRelay.get()).as("the stream's ended thread").isNull();
  }

  @Test
  void aClientLeavingWhileTheStreamWaitsWithNoThreadInterruptsTheThreadThatGoesOn() throws Exception {
    CancellationScope scope = CancellationScope.open(request(), watches);
    scope.letGoOfCurrentThread();

    scope.cancellation().cancel();

    assertThat(Thread.interrupted()).as("the thread that let go").isFalse();
    AtomicBoolean interrupted = new AtomicBoolean();
    Thread next = Thread.ofVirtual().start(() -> {
      scope.interruptCurrentThread();
      interrupted.set(Thread.currentThread().isInterrupted());
    });
    next.join();
    assertThat(interrupted).as("the fresh thread, at once").isTrue();
    scope.close();
  }

  @Test
  void aThreadLettingGoAfterTheNextWentOnLeavesTheNextOneToInterrupt() throws Exception {
    CancellationScope scope = CancellationScope.open(request(), watches);
    CountDownLatch registered = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    Thread next = Thread.ofVirtual().start(() -> {
      scope.interruptCurrentThread();
      registered.countDown();
      try {
        new CountDownLatch(1).await(); // until the client leaves
      } catch (InterruptedException e) {
        interrupted.set(true);
      }
    });
    registered.await();

    scope.letGoOfCurrentThread(); // late: the stream already goes on on the next thread
    scope.cancellation().cancel();

    next.join();
    assertThat(interrupted).isTrue();
    assertThat(Thread.interrupted()).isFalse();
    scope.close();
  }
}
