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

  @Test
  void lanesGiveExactlyTheOrderOfOneHeap() {
    EventQueue heap = new EventQueue(0);
    EventQueue laned = new EventQueue(0, 3);
    Mulberry32 random = new Mulberry32(42);
    double now = 0;
    int id = 0;
    for (int step = 0; step < 50_000; step++) {
      if (heap.isEmpty() || random.nextDouble() < 0.55) {
        int lane = (int) (random.nextDouble() * 4) - 1; // NO_LANE, 0, 1 or 2
        double delay = switch (lane) {
          case 0 -> 1.0;
          case 1 -> 0.1;
          case 2 -> 0.05;
          default -> random.nextDouble() * 3; // out of order: the laned queue must use its heap
        };
        if (random.nextDouble() < 0.1) delay = 0; // ties with the current instant
        heap.push(now + delay, id, lane, null);
        laned.push(lane == 2 && random.nextDouble() < 0.5 ? 2 : lane, now + delay, id, lane, null);
        id++;
      } else {
        assertThat(laned.topTime()).isEqualTo(heap.topTime());
        assertThat(laned.topRequest()).isEqualTo(heap.topRequest());
        assertThat(laned.topCode()).isEqualTo(heap.topCode());
        now = heap.topTime();
        heap.pop();
        laned.pop();
      }
    }
    while (!heap.isEmpty()) {
      assertThat(laned.topRequest()).isEqualTo(heap.topRequest());
      heap.pop();
      laned.pop();
    }
    assertThat(laned.isEmpty()).isTrue();
  }
}
