package dev.levee.sim;

import java.util.Arrays;

/**
 * Pending events ordered by time, ties in insertion order, kept in primitive arrays so the hot
 * loop allocates nothing per event.
 *
 * <p>Most events are pushed a constant delay after the current time (an answer after the
 * success or failure latency, a retry after a fixed wait), and the current time never goes
 * back, so each such stream is already sorted. A push names a lane; an event that keeps its
 * lane sorted is appended to it in O(1), any other goes to a binary min-heap on {@code (time,
 * sequence)}. The earliest event is the least of the lane heads and the heap's top. The order is
 * exactly that of one heap on {@code (time, sequence)}; lanes only save its cost.
 *
 * <p>Each event carries a request index, a small integer code and an optional object (the
 * breaker permit of an attempt in flight). Not thread-safe; one run owns one queue.
 */
final class EventQueue {

  /** The lane for events with no particular order (the heap). */
  static final int NO_LANE = -1;

  /** A FIFO of events pushed in (time, sequence) order: a growable ring. */
  private static final class Lane {
    double[] times = new double[256];
    long[] seqs = new long[256];
    long[] payloads = new long[256];
    Object[] tickets = new Object[256];
    int head;
    int size;
    double lastTime = Double.NEGATIVE_INFINITY;

    boolean accepts(double time) {
      return time >= lastTime;
    }

    void add(double time, long seq, long payload, Object ticket) {
      if (size == times.length) {
        grow();
      }
      int i = (head + size++) & (times.length - 1);
      times[i] = time;
      seqs[i] = seq;
      payloads[i] = payload;
      tickets[i] = ticket;
      lastTime = time;
    }

    void removeFirst() {
      tickets[head] = null;
      head = (head + 1) & (times.length - 1);
      size--;
    }

    private void grow() {
      int n = times.length * 2;
      double[] t = new double[n];
      long[] s = new long[n];
      long[] p = new long[n];
      Object[] o = new Object[n];
      for (int k = 0; k < size; k++) {
        int i = (head + k) & (times.length - 1);
        t[k] = times[i];
        s[k] = seqs[i];
        p[k] = payloads[i];
        o[k] = tickets[i];
      }
      times = t;
      seqs = s;
      payloads = p;
      tickets = o;
      head = 0;
    }
  }

  private final Lane[] lanes;
  private double[] times = new double[256];
  private long[] seqs = new long[256];
  private long[] payloads = new long[256]; // request << 32 | code
  private Object[] tickets = new Object[256];
  private int size;
  private long nextSeq;
  private int top = Integer.MIN_VALUE; // source of the earliest event: a lane index, NO_LANE, or unknown

  /**
   * @param firstSeq the sequence number of the first event pushed (events before it win ties)
   * @param laneCount sorted lanes to keep besides the heap
   */
  EventQueue(long firstSeq, int laneCount) {
    this.nextSeq = firstSeq;
    this.lanes = new Lane[laneCount];
    for (int i = 0; i < laneCount; i++) {
      lanes[i] = new Lane();
    }
  }

  /** A queue with no lanes: a plain heap. */
  EventQueue(long firstSeq) {
    this(firstSeq, 0);
  }

  boolean isEmpty() {
    return source() == Integer.MIN_VALUE;
  }

  /**
   * Adds an event after every event already queued for the same time.
   *
   * @param lane the lane it belongs to (events pushed a constant delay after "now"), or {@link #NO_LANE}
   */
  void push(int lane, double time, int request, int code, Object ticket) {
    long seq = nextSeq++;
    long payload = (long) request << 32 | (code & 0xFFFF_FFFFL);
    if (lane != NO_LANE && lanes[lane].accepts(time)) {
      lanes[lane].add(time, seq, payload, ticket);
    } else {
      heapPush(time, seq, payload, ticket);
    }
    top = Integer.MIN_VALUE + 1; // unknown
  }

  /** Adds an event to the heap (no lane). */
  void push(double time, int request, int code, Object ticket) {
    push(NO_LANE, time, request, code, ticket);
  }

  /** Time of the earliest event; read the top with these before {@link #pop()}. */
  double topTime() {
    int s = source();
    return s == NO_LANE ? times[0] : lanes[s].times[lanes[s].head];
  }

  int topRequest() {
    return (int) (topPayload() >>> 32);
  }

  int topCode() {
    return (int) topPayload();
  }

  Object topTicket() {
    int s = source();
    return s == NO_LANE ? tickets[0] : lanes[s].tickets[lanes[s].head];
  }

  /** Removes the earliest event. */
  void pop() {
    int s = source();
    if (s == NO_LANE) {
      heapPop();
    } else {
      lanes[s].removeFirst();
    }
    top = Integer.MIN_VALUE + 1;
  }

  private long topPayload() {
    int s = source();
    return s == NO_LANE ? payloads[0] : lanes[s].payloads[lanes[s].head];
  }

  /** Where the earliest event is; Integer.MIN_VALUE when there is none. */
  private int source() {
    if (top != Integer.MIN_VALUE + 1) {
      return top;
    }
    int best = Integer.MIN_VALUE;
    double bestTime = 0;
    long bestSeq = 0;
    if (size > 0) {
      best = NO_LANE;
      bestTime = times[0];
      bestSeq = seqs[0];
    }
    for (int l = 0; l < lanes.length; l++) {
      Lane lane = lanes[l];
      if (lane.size > 0) {
        double t = lane.times[lane.head];
        long q = lane.seqs[lane.head];
        if (best == Integer.MIN_VALUE || before(t, q, bestTime, bestSeq)) {
          best = l;
          bestTime = t;
          bestSeq = q;
        }
      }
    }
    top = best;
    return best;
  }

  private void heapPush(double time, long seq, long payload, Object ticket) {
    if (size == times.length) {
      grow();
    }
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(time, seq, times[parent], seqs[parent])) {
        break;
      }
      move(parent, i);
      i = parent;
    }
    set(i, time, seq, payload, ticket);
  }

  private void heapPop() {
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
