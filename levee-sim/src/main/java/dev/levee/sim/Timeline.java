package dev.levee.sim;

import java.util.Arrays;

/**
 * What happened in each whole second of a run: requests that arrived, upstream calls made,
 * calls that failed, requests that succeeded (goodput) or were lost, and the policy's guard
 * level at the end of the second. Not thread-safe.
 */
public final class Timeline {

  private int[] arrivals = new int[64];
  private int[] calls = new int[64];
  private int[] failures = new int[64];
  private int[] successes = new int[64];
  private int[] lost = new int[64];
  private double[] guard = new double[64];
  private int seconds;   // seconds touched so far
  private int sampled;   // seconds whose guard is recorded

  void arrival(double time) {
    int s = slot(time); // before reading the field: slot() may grow the array
    arrivals[s]++;
  }

  void call(double time) {
    int s = slot(time); // before reading the field: slot() may grow the array
    calls[s]++;
  }

  void failure(double time) {
    int s = slot(time); // before reading the field: slot() may grow the array
    failures[s]++;
  }

  void success(double time) {
    int s = slot(time); // before reading the field: slot() may grow the array
    successes[s]++;
  }

  void lost(double time) {
    int s = slot(time); // before reading the field: slot() may grow the array
    lost[s]++;
  }

  /** Records the guard for every second that ended before {@code time}. */
  void sampleBefore(double time, ClientPolicy policy) {
    int upTo = (int) Math.floor(time); // seconds [sampled, upTo) have ended
    if (upTo > sampled) {
      ensure(upTo);
      double g = policy.guard();
      Arrays.fill(guard, sampled, upTo, g);
      sampled = upTo;
      seconds = Math.max(seconds, upTo);
    }
  }

  /** Closes the run: samples the seconds still open with the final guard. */
  void finish(ClientPolicy policy) {
    sampleBefore(seconds, policy);
  }

  /** Seconds covered, from 0. */
  public int seconds() {
    return seconds;
  }

  public int arrivals(int second) {
    return arrivals[second];
  }

  public int calls(int second) {
    return calls[second];
  }

  public int failures(int second) {
    return failures[second];
  }

  public int successes(int second) {
    return successes[second];
  }

  public int lost(int second) {
    return lost[second];
  }

  /** The guard level at the end of {@code second}, in [0, 1], or NaN. */
  public double guard(int second) {
    return guard[second];
  }

  private int slot(double time) {
    int s = (int) Math.floor(time);
    if (s >= seconds) {
      ensure(s + 1);
      seconds = s + 1;
    }
    return s;
  }

  private void ensure(int size) {
    if (size > arrivals.length) {
      int n = Math.max(size, arrivals.length * 2);
      arrivals = Arrays.copyOf(arrivals, n);
      calls = Arrays.copyOf(calls, n);
      failures = Arrays.copyOf(failures, n);
      successes = Arrays.copyOf(successes, n);
      lost = Arrays.copyOf(lost, n);
      guard = Arrays.copyOf(guard, n);
    }
  }
}
