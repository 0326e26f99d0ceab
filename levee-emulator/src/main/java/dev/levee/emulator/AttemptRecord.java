package dev.levee.emulator;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The mutable log record of one request while it is served; {@link #snapshot()} gives the
 * immutable {@link LogEntry}. Thread-safe (the handler and Jetty's disconnect callback update it).
 */
final class AttemptRecord {

  /** How much of a request body the log keeps: 256 KiB. */
  static final int BODY_COPY_LIMIT = 256 * 1024;

  private final RequestLog log;
  private final long startNanos;
  private final long atMs;
  private final String method;
  private final String path;
  private final String query;
  private final String anthropicVersion;
  private final String anthropicBeta;
  private final long bodySize;
  private final String bodySha256;
  private final String body;
  private String model;
  private boolean stream;
  private String action = "ok";
  private int status;
  private String lastRole;
  private String continuation;
  private long ttftMs = -1;
  private boolean clientGoneEarly;
  private boolean finished;

  AttemptRecord(RequestLog log, long startNanos, long atMs, String method, String path, String query,
      String anthropicVersion, String anthropicBeta, byte[] body) {
    this.log = log;
    this.startNanos = startNanos;
    this.atMs = atMs;
    this.method = method;
    this.path = path;
    this.query = query;
    this.anthropicVersion = anthropicVersion;
    this.anthropicBeta = anthropicBeta;
    this.bodySize = body.length;
    this.bodySha256 = HexFormat.of().formatHex(Prng.sha256(body));
    this.body = new String(Arrays.copyOf(body, Math.min(body.length, BODY_COPY_LIMIT)), StandardCharsets.UTF_8);
  }

  /** The request's {@code anthropic-beta} values joined with {@code ,}, or null. */
  String anthropicBeta() {
    return anthropicBeta;
  }

  // Mutators update under this record's lock, then wake log waiters outside it: the log's lock is
  // always taken first (snapshot), so a record never holds its own lock while taking the log's.

  void request(String model, boolean stream, String lastRole) {
    synchronized (this) {
      this.model = model;
      this.stream = stream;
      this.lastRole = lastRole;
    }
    log.changed();
  }

  void action(String action) {
    synchronized (this) {
      this.action = action;
    }
    log.changed();
  }

  void continuation(String continuation) {
    synchronized (this) {
      this.continuation = continuation;
    }
    log.changed();
  }

  void status(int status) {
    synchronized (this) {
      this.status = status;
    }
    log.changed();
  }

  /** Records the time to first content; called once, when the first content is written. */
  void firstContent(long nowNanos) {
    synchronized (this) {
      ttftMs = (nowNanos - startNanos) / 1_000_000;
    }
    log.changed();
  }

  void clientGone() {
    synchronized (this) {
      if (!finished) {
        clientGoneEarly = true;
      }
    }
    log.changed();
  }

  void finish() {
    synchronized (this) {
      finished = true;
    }
    log.changed();
  }

  synchronized LogEntry snapshot() {
    return new LogEntry(atMs, method, path, query, model, stream, action, status, lastRole, continuation,
        anthropicVersion, anthropicBeta, bodySize, bodySha256, body, bodySize > BODY_COPY_LIMIT, ttftMs,
        clientGoneEarly, finished);
  }
}
