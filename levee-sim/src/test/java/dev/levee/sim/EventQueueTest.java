package dev.levee.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventQueueTest {

  @Test
  void takesEventsByTimeAndTiesInInsertionOrder() {
    EventQueue queue = new EventQueue(0);
    queue.push(2.0, 1, 0, null);
    queue.push(1.0, 2, 0, null);
    queue.push(2.0, 3, 0, null);
    queue.push(0.5, 4, 0, "ticket");
    queue.push(2.0, 5, 0, null);

    assertThat(queue.topTicket()).isEqualTo("ticket");
    List<Integer> order = new ArrayList<>();
    while (!queue.isEmpty()) {
      order.add(queue.topRequest());
      queue.pop();
    }
    assertThat(order).containsExactly(4, 2, 1, 3, 5);
  }

  @Test
  void staysOrderedThroughGrowthAndInterleavedPops() {
    EventQueue queue = new EventQueue(0);
    Mulberry32 random = new Mulberry32(1);
    double last = Double.NEGATIVE_INFINITY;
    int popped = 0;
    for (int i = 0; i < 10_000; i++) {
      queue.push(last + random.nextDouble() * 10, i, 0, null);
      if (i % 3 == 0) {
        assertThat(queue.topTime()).isGreaterThanOrEqualTo(last);
        last = queue.topTime();
        queue.pop();
        popped++;
      }
    }
    while (!queue.isEmpty()) {
      assertThat(queue.topTime()).isGreaterThanOrEqualTo(last);
      last = queue.topTime();
      queue.pop();
      popped++;
    }
    assertThat(popped).isEqualTo(10_000);
  }
}
