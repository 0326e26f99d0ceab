package dev.levee.sim;

import java.util.Arrays;

/**
 * Pending events ordered by time, ties in insertion order: a binary min-heap on {@code (time,
 * sequence)} kept in parallel primitive arrays, so the hot loop allocates nothing per event.
 *
 * <p>Each event carries a request index, a small integer code and an optional object (the
 * breaker permit of an attempt in flight). Not thread-safe; one run owns one queue.
 */
final class EventQueue {

  private double[] times = new double[256];
  private long[] seqs = new long[256];
  private long[] payloads = new long[256]; // request << 32 | code
  private Object[] tickets = new Object[256];
  private int size;
  private long nextSeq;

  /** @param firstSeq the sequence number of the first event pushed (events before it win ties) */
  EventQueue(long firstSeq) {
    this.nextSeq = firstSeq;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** Adds an event after every event already queued for the same time. */
  void push(double time, int request, int code, Object ticket) {
    if (size == times.length) {
      grow();
    }
    long seq = nextSeq++;
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(time, seq, times[parent], seqs[parent])) {
        break;
      }
      move(parent, i);
      i = parent;
    }
    set(i, time, seq, (long) request << 32 | (code & 0xFFFF_FFFFL), ticket);
  }

  /** Time of the earliest event; read the top with these before {@link #pop()}. */
  double topTime() {
    return times[0];
  }

  int topRequest() {
    return (int) (payloads[0] >>> 32);
  }

  int topCode() {
    return (int) payloads[0];
  }

  Object topTicket() {
    return tickets[0];
  }

  /** Removes the earliest event. */
  void pop() {
    int last = --size;
    double time = times[last];
    long seq = seqs[last];
    long payload = payloads[last];
    Object ticket = tickets[last];
    tickets[last] = null;
    int i = 0;
    int half = last >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < last && before(times[right], seqs[right], times[child], seqs[child])) {
        child = right;
      }
      if (!before(times[child], seqs[child], time, seq)) {
        break;
      }
      move(child, i);
      i = child;
    }
    if (last > 0) {
      set(i, time, seq, payload, ticket);
    }
  }

  private static boolean before(double t1, long s1, double t2, long s2) {
    return t1 < t2 || (t1 == t2 && s1 < s2);
  }

  private void move(int from, int to) {
    times[to] = times[from];
    seqs[to] = seqs[from];
    payloads[to] = payloads[from];
    tickets[to] = tickets[from];
  }

  private void set(int i, double time, long seq, long payload, Object ticket) {
    times[i] = time;
    seqs[i] = seq;
    payloads[i] = payload;
    tickets[i] = ticket;
  }

  private void grow() {
    int n = times.length * 2;
    times = Arrays.copyOf(times, n);
    seqs = Arrays.copyOf(seqs, n);
    payloads = Arrays.copyOf(payloads, n);
    tickets = Arrays.copyOf(tickets, n);
  }
}
