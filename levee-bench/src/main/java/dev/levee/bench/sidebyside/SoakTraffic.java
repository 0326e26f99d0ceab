package dev.levee.bench.sidebyside;

import dev.levee.bench.sidebyside.SoakConnection.Answer;
import dev.levee.bench.sidebyside.SoakConnection.Reading;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The mixed traffic of {@link Soak}: {@code rate} operations a second, each on a virtual thread,
 * each drawn from {@link Kind} by its weight. Requests go to every alias of {@link SoakGateway},
 * from a pool of tenants (different {@code x-api-key}s) plus a steady trickle of tenants never
 * seen before, for the configured features, unknown ones and none, with fresh and replayed
 * {@code idempotency-key}s, and mostly unique prompts (some repeated, for the cache); and model
 * names no alias lists, each one new (a client inventing names: what the bounded tables of
 * client-named targets are for), malformed requests, {@code /health} and {@code /metrics}. Every answer
 * is checked for what its alias promises (a healthy, absorbed or recovered alias answers 200, a
 * stream whole); what is not is counted as unexpected, with the first few kept for the report.
 * Thread-safe; {@link #start} once.
 */
final class SoakTraffic {

  /** What one operation does, and its weight in the mix (percent). */
  enum Kind {
    JSON(26), STREAM(26), STREAM_GONE(6), STREAM_SLOW(4), JSON_GONE(2), IDEMPOTENT(6), REPLAY(3), MALFORMED(9),
    INVENTED_MODEL(5), COUNT_TOKENS(2), MODELS(1), HEALTH(5), METRICS(2), READY(3);

    final int weight;

    Kind(int weight) {
      this.weight = weight;
    }
  }

  static final List<String> ALIASES = List.of("healthy", "absorbed", "recovered", "dead", "scored");
  private static final List<String> FEATURES = List.of("chat", "search", "digest");
  private static final int MAX_POOLED = 64;

  private final URI base;
  private final double rate;
  private final double ramp;
  private final int tenants;
  private final int maxInFlight;
  private final Semaphore inFlight;
  private final ConcurrentLinkedDeque<SoakConnection> pool = new ConcurrentLinkedDeque<>();
  private final AtomicLong serial = new AtomicLong();
  private final LongAdder done = new LongAdder();
  private final LongAdder behind = new LongAdder();
  private final LongAdder unexpected = new LongAdder();
  private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
  private final List<String> examples = Collections.synchronizedList(new ArrayList<>());
  private final ConcurrentLinkedDeque<byte[]> replayable = new ConcurrentLinkedDeque<>();
  private volatile boolean running = true;
  private Thread pacer;

  /**
   * @param rate operations a second, once the ramp is over
   * @param ramp seconds over which the rate rises from zero; 0: the full rate at once, as a gateway
   *     restarted in a rolling deploy gets it (docs/benchmarks.md, "A cold gateway on a starved box")
   */
  SoakTraffic(URI base, double rate, double ramp, int tenants, int maxInFlight) {
    this.base = base;
    this.rate = rate;
    this.ramp = ramp;
    this.tenants = tenants;
    this.maxInFlight = maxInFlight;
    this.inFlight = new Semaphore(maxInFlight);
  }

  /** Starts the pacer: up to {@code rate} operations a second until {@link #stop}. */
  void start() {
    int[] cumulative = new int[Kind.values().length];
    int sum = 0;
    for (Kind k : Kind.values()) {
      sum += k.weight;
      cumulative[k.ordinal()] = sum;
    }
    int total = sum;
    pacer = Thread.ofPlatform().daemon().name("soak-pacer").start(() -> {
      long start = System.nanoTime();
      long launched = 0;
      while (running) {
        double t = (System.nanoTime() - start) / 1e9; // the rate rises linearly over the ramp, then holds
        long due = (long) (t < ramp ? rate * t * t / (2 * ramp) : rate * (t - ramp / 2));
        for (; launched < due && running; launched++) {
          if (!inFlight.tryAcquire()) {
            behind.increment(); // the gateway (or this box) is slower than the rate: skip, never queue
            continue;
          }
          int draw = ThreadLocalRandom.current().nextInt(total);
          Kind kind = Kind.values()[0];
          for (Kind k : Kind.values()) {
            if (draw < cumulative[k.ordinal()]) {
              kind = k;
              break;
            }
          }
          Kind chosen = kind;
          Thread.ofVirtual().start(() -> {
            try {
              run(chosen);
            } finally {
              inFlight.release();
              done.increment();
            }
          });
        }
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
  }

  /** Stops launching and waits up to {@code seconds} for the operations in flight. */
  void stop(int seconds) throws InterruptedException {
    running = false;
    pacer.join();
    if (inFlight.tryAcquire(maxInFlight, seconds, TimeUnit.SECONDS)) {
      inFlight.release(maxInFlight);
    }
    for (SoakConnection c; (c = pool.poll()) != null; ) {
      try {
        c.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  long done() {
    return done.sum();
  }

  long behind() {
    return behind.sum();
  }

  long unexpected() {
    return unexpected.sum();
  }

  int inFlight() {
    return maxInFlight - inFlight.availablePermits();
  }

  /** Operations per kind and outcome, e.g. {@code STREAM healthy 200 whole}. */
  Map<String, Long> outcomes() {
    Map<String, Long> sorted = new TreeMap<>();
    outcomes.forEach((k, v) -> sorted.put(k, v.sum()));
    return sorted;
  }

  List<String> examples() {
    synchronized (examples) {
      return List.copyOf(examples);
    }
  }

  private void run(Kind kind) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long n = serial.incrementAndGet();
    String alias = ALIASES.get(random.nextInt(ALIASES.size()));
    try {
      switch (kind) {
        case JSON -> check(kind, alias, exchange(messages(n, alias, false, null), Reading.WHOLE), false);
        case STREAM -> check(kind, alias, exchange(messages(n, alias, true, null), Reading.WHOLE), true);
        case STREAM_SLOW -> {
          try (SoakConnection c = new SoakConnection(base, true)) {
            check(kind, alias, c.exchange(messages(n, alias, true, null), Reading.SLOW), true);
          }
        }
        case STREAM_GONE -> {
          SoakConnection c = new SoakConnection(base, false);
          Answer a = c.exchange(messages(n, alias, true, null), Reading.UNTIL_FIRST_DELTA);
          if (random.nextBoolean()) {
            c.reset();
          } else {
            c.close();
          }
          count(kind + " " + alias + " " + (a == null ? "left after the first delta" : a.status() + " before any delta"));
        }
        case JSON_GONE -> {
          try (SoakConnection c = new SoakConnection(base, false)) {
            c.send(messages(n, alias, false, null));
            Thread.sleep(random.nextInt(1, 30)); // before the answer: emu-ok takes ~80 ms
          }
          count(kind + " " + alias + " left before the answer");
        }
        case IDEMPOTENT -> {
          boolean stream = random.nextBoolean();
          byte[] request = messages(n, "healthy", stream, "soak-" + n + "-" + random.nextLong());
          Answer a = exchange(request, Reading.WHOLE);
          check(kind, "healthy", a, stream);
          if (a.status() == 200) {
            replayable.addFirst(request);
            while (replayable.size() > 200) {
              replayable.pollLast();
            }
          }
        }
        case REPLAY -> {
          byte[] request = replayable.peekFirst();
          if (request == null) {
            count(kind + " nothing to replay yet");
            return;
          }
          Answer a = exchange(request, Reading.WHOLE);
          String replayed = a.headers().getOrDefault("idempotent-replayed", "-");
          count(kind + " " + a.status() + " replayed=" + replayed);
          if (a.status() != 200 || !replayed.equals("true")) {
            surprise(kind + ": " + a.status() + " replayed=" + replayed + " " + abbreviated(a.text()));
          }
        }
        case MALFORMED -> malformed(n, random.nextInt(9));
        case INVENTED_MODEL -> {
          boolean stream = random.nextBoolean();
          check(kind, "invented", exchange(messages(n, "claude-soak-" + n, stream, null), Reading.WHOLE), stream);
        }
        case COUNT_TOKENS -> {
          byte[] body = ("{\"model\":\"healthy\",\"messages\":[{\"role\":\"user\",\"content\":\"count " + n + "\"}]}")
              .getBytes(StandardCharsets.UTF_8);
          expect(kind, exchange(SoakConnection.request("POST", "/v1/messages/count_tokens", apiHeaders(n, null), body),
              Reading.WHOLE), 200);
        }
        case MODELS -> expect(kind, exchange(SoakConnection.request("GET", "/v1/models", apiHeaders(n, null), null),
            Reading.WHOLE), 200);
        case HEALTH -> { // 503 while a target is down: the dead alias's is, always
          Answer a = exchange(get("/health"), Reading.WHOLE);
          count(kind + " " + a.status());
          if (a.status() != 200 && !(a.status() == 503 && a.text().contains("\"status\":\"unhealthy\""))) {
            surprise(kind + ": " + a.status() + " " + abbreviated(a.text()));
          }
        }
        case READY -> expect(kind, exchange(get(random.nextBoolean() ? "/health/ready" : "/health/live"), Reading.WHOLE), 200);
        case METRICS -> expect(kind, exchange(get("/metrics"), Reading.WHOLE), 200);
      }
    } catch (IOException e) {
      count(kind + " " + alias + " i/o: " + e.getMessage());
      surprise(kind + " " + alias + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      count(kind + " " + alias + " " + e.getClass().getSimpleName());
      surprise(kind + " " + alias + ": " + e);
    }
  }

  /**
   * A request the gateway must refuse — or, for a body cut short, drop — without harm: each
   * variant on a connection of its own.
   */
  private void malformed(long n, int variant) throws IOException {
    Map<String, String> headers = apiHeaders(n, null);
    byte[] good = body(n, "healthy", false);
    byte[] request = switch (variant) {
      case 0 -> SoakConnection.request("POST", "/v1/messages", headers, "{\"model\":\"healthy\",".getBytes(StandardCharsets.UTF_8));
      case 1 -> SoakConnection.request("POST", "/v1/messages", headers, "{\"max_tokens\":5,\"messages\":[]}".getBytes(StandardCharsets.UTF_8));
      case 2 -> {
        headers.remove("anthropic-version");
        yield SoakConnection.request("POST", "/v1/messages", headers, good);
      }
      case 3 -> {
        headers.put("content-type", "text/plain");
        yield SoakConnection.request("POST", "/v1/messages", headers, good);
      }
      case 4 -> SoakConnection.request("POST", "/v1/messages", headers, new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', '}'});
      case 5 -> SoakConnection.request("POST", "/v1/messages", headers,
          ("{\"model\":\"bad model {" + n + "}\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}")
              .getBytes(StandardCharsets.UTF_8));
      case 6 -> "GARBAGE / NOT-HTTP\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
      case 7 -> "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
      default -> { // a body cut short: content-length says more than is sent, then the client leaves
        byte[] whole = SoakConnection.request("POST", "/v1/messages", headers, good);
        yield Arrays.copyOf(whole, whole.length - good.length / 2);
      }
    };
    try (SoakConnection c = new SoakConnection(base, false)) {
      c.send(request);
      if (variant == 8) {
        count(Kind.MALFORMED + " body cut short");
        return;
      }
      Answer a = c.read(Reading.WHOLE);
      count(Kind.MALFORMED + " " + variant + " " + a.status());
      if (a.status() < 400 || a.status() >= 500) {
        surprise(Kind.MALFORMED + " " + variant + ": " + a.status() + " " + abbreviated(a.text()));
      }
    }
  }

  /** Sends on a kept-alive connection from the pool (a fresh one when none, or when a pooled one was closed). */
  private Answer exchange(byte[] request, Reading how) throws IOException {
    SoakConnection pooled = pool.pollFirst();
    if (pooled != null) {
      try {
        Answer a = pooled.exchange(request, how);
        giveBack(pooled, a);
        return a;
      } catch (IOException stale) {
        pooled.close(); // the server closed it while idle: once more on a fresh one
      }
    }
    SoakConnection fresh = new SoakConnection(base, false);
    try {
      Answer a = fresh.exchange(request, how);
      giveBack(fresh, a);
      return a;
    } catch (IOException | RuntimeException e) {
      fresh.close();
      throw e;
    }
  }

  private void giveBack(SoakConnection c, Answer a) throws IOException {
    if (a.keepAlive() && pool.size() < MAX_POOLED) {
      pool.addFirst(c);
    } else {
      c.close();
    }
  }

  private void check(Kind kind, String alias, Answer a, boolean stream) {
    String text = a.text();
    boolean whole = stream ? text.contains("event: message_stop") && !text.contains("event: error")
        : text.contains("\"type\":\"message\"");
    String tier = a.headers().getOrDefault("x-levee-tier", "-");
    count(kind + " " + alias + " " + a.status() + (whole ? " whole" : " not-whole") + " " + tier);
    boolean ok = alias.equals("dead")
        ? a.status() >= 500 || a.status() == 200 && whole && !tier.equals("T0")
        : a.status() == 200 && whole;
    if (!ok) {
      surprise(kind + " " + alias + ": " + a.status() + " tier " + tier + " " + abbreviated(text));
    }
  }

  private void expect(Kind kind, Answer a, int status) {
    count(kind + " " + a.status());
    if (a.status() != status) {
      surprise(kind + ": " + a.status() + " " + abbreviated(a.text()));
    }
  }

  private void count(String outcome) {
    outcomes.computeIfAbsent(outcome, k -> new LongAdder()).increment();
  }

  private void surprise(String what) {
    unexpected.increment();
    synchronized (examples) {
      if (examples.size() < 20) {
        examples.add(what);
      }
    }
  }

  private static String abbreviated(String text) {
    String one = text.replaceAll("\\s+", " ");
    return one.length() > 300 ? one.substring(0, 300) + "…" : one;
  }

  private byte[] get(String path) {
    return SoakConnection.request("GET", path, Map.of(), null);
  }

  private byte[] messages(long n, String model, boolean stream, String idempotencyKey) {
    return SoakConnection.request("POST", "/v1/messages", apiHeaders(n, idempotencyKey), body(n, model, stream));
  }

  /**
   * A tenant of the pool, or one-in-ten a tenant never seen before; a configured feature, an
   * unknown one (one-in-ten, never seen before) or none.
   */
  private Map<String, String> apiHeaders(long n, String idempotencyKey) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("content-type", "application/json");
    headers.put("anthropic-version", "2023-06-01");
    headers.put("x-api-key", random.nextInt(10) == 0 ? "sk-soak-once-" + n : "sk-soak-" + random.nextInt(tenants));
    int feature = random.nextInt(10);
    if (feature < FEATURES.size() * 2) {
      headers.put("x-levee-feature", FEATURES.get(feature % FEATURES.size()));
    } else if (feature == 9) {
      headers.put("x-levee-feature", "feature-" + n);
    }
    if (idempotencyKey != null) {
      headers.put("idempotency-key", idempotencyKey);
    }
    return headers;
  }

  /** A unique prompt, or one-in-ten one of 50 repeated ones. */
  private static byte[] body(long n, String model, boolean stream) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String prompt = random.nextInt(10) == 0 ? "a question asked often, number " + random.nextInt(50)
        : "soak question " + n + " " + random.nextLong();
    return ("{\"model\":\"" + model + "\",\"max_tokens\":64" + (stream ? ",\"stream\":true" : "")
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}").getBytes(StandardCharsets.UTF_8);
  }
}
