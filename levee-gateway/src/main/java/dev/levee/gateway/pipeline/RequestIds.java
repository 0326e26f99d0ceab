package dev.levee.gateway.pipeline;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Levee's ids for client requests, {@code lv_<instance>_<n>}: in the access log, in {@code
 * x-levee-request-id}, and as {@code request_id} in every error body Levee writes itself.
 * Thread-safe.
 */
public final class RequestIds {

  private final AtomicLong sequence = new AtomicLong();
  private final String instance = Integer.toString(ThreadLocalRandom.current().nextInt(1 << 20, 1 << 25), 36);

  /** A fresh id. */
  public String next() {
    return "lv_" + instance + "_" + sequence.incrementAndGet();
  }
}
