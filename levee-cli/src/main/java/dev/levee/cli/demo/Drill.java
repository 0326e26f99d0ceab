package dev.levee.cli.demo;

import dev.levee.cli.report.Report;
import dev.levee.emulator.LogEntry;
import dev.levee.emulator.Scenario;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Runs the demo: two worlds (with Levee, and a baseline with resilience off) under the same
 * incident and the same open-loop load, a live per-second timeline, then a summary.
 */
public final class Drill {

  /** Loss and amplification of both worlds. */
  public record Result(double resilientLoss, double resilientAmplification, double baselineLoss,
      double baselineAmplification) {}

  private final Duration duration;
  private final int rate;
  private final int clients;
  private final long seed;
  private final Scenario scenario;
  private final PrintStream out;
  private final Supplier<MachineLoad> machine;
  private MachineLoad loadAtStart;
  private DemoReport.Readings readings;
  private final Timeline timeline = new Timeline();
  private Report report;

  /**
   * @param scenario the incident, or null for the built-in one scaled to {@code duration}
   */
  public Drill(Duration duration, int rate, int clients, long seed, Scenario scenario, PrintStream out) {
    this(duration, rate, clients, seed, scenario, out, MachineLoad::now);
  }

  /** @param machine reads the machine's load at the start and the end (null when unknown) */
  Drill(Duration duration, int rate, int clients, long seed, Scenario scenario, PrintStream out,
      Supplier<MachineLoad> machine) {
    this.duration = duration;
    this.machine = machine;
    this.rate = rate;
    this.clients = clients;
    this.seed = seed;
    this.scenario = scenario;
    this.out = out;
  }

  public Result run() throws Exception {
    int seconds = (int) duration.toSeconds();
    Scenario incident = scenario != null ? scenario : Incident.of(World.PRIMARY, duration, seed);
    header(seconds);
    readings = new DemoReport.Readings(seconds);
    try (World levee = World.start("levee", true, incident);
         World baseline = World.start("baseline", false, incident);
         Load withLevee = new Load(levee, clients, seconds, rate);
         Load without = new Load(baseline, clients, seconds, rate)) {
      levee.reset(); // incident time restarts for the warm-up, then again at time zero
      baseline.reset();
      withLevee.warmUp();
      without.warmUp();
      levee.reset();
      baseline.reset();
      readings.record(0, levee);
      long start = System.nanoTime();
      withLevee.start(start);
      without.start(start);
      ScheduledExecutorService arrivals = Executors.newSingleThreadScheduledExecutor();
      long end = start + seconds * 1_000_000_000L;
      arrivals.scheduleAtFixedRate(() -> {
        if (System.nanoTime() - end < 0) {
          withLevee.fire();
          without.fire();
        }
      }, 0, 1_000_000_000L / rate, TimeUnit.NANOSECONDS);
      try {
        for (int s = 0; s < seconds; s++) {
          waitUntil(start + (s + 1) * 1_000_000_000L);
          row(s, levee, withLevee, baseline, without);
        }
      } finally {
        arrivals.shutdownNow();
      }
      withLevee.drain();
      without.drain();
      Timeline.Counts totals = totals(levee, withLevee, baseline, without); // one reading for the table and the summary
      out.print(timeline.later(totals));
      MachineLoad loadAtEnd = machine.get();
      Result result = summary(totals, withLevee, without);
      String starved = starved(loadAtEnd);
      report = DemoReport.of(lead(seconds, loadAtEnd), table(levee, withLevee, baseline, without), incident, seconds,
          new DemoReport.Side(readings, withLevee, levee.upstreamCalls()),
          new DemoReport.Side(new DemoReport.Readings(seconds), without, baseline.upstreamCalls()),
          starved == null ? List.of() : List.of(starved));
      return result;
    }
  }

  /** The run as a report (tables and charts of both worlds); null before {@link #run()} returned. */
  public Report report() {
    return report;
  }

  /** Prints the machine's load at the end and, when it was starved at either end, the warning; returns it (or null). */
  private String starved(MachineLoad loadAtEnd) {
    out.println("machine at the start: " + MachineLoad.describe(loadAtStart));
    out.println("machine at the end:   " + MachineLoad.describe(loadAtEnd));
    String warning = MachineLoad.warning(loadAtStart, loadAtEnd);
    if (warning != null) {
      out.println();
      out.println(warning);
    }
    out.flush();
    return warning;
  }

  private String lead(int seconds, MachineLoad loadAtEnd) {
    return seconds + " s, " + rate + " requests/s on each side from " + clients + " official Java SDK clients (their "
        + "retries off, every third request streamed). "
        + (scenario == null ? "I" + Incident.describe(duration).substring(1) : "Incident: the scenario file given")
        + ". With Levee: "
        + World.ALIAS + " = [" + World.PRIMARY + " -> claude-haiku-4-5], 2 retries with full jitter, breaker, retry "
        + "budget, tiers. Without: the primary only, no retries, no fallback, no breaker. Machine: at the start "
        + MachineLoad.describe(loadAtStart) + "; at the end " + MachineLoad.describe(loadAtEnd) + ".";
  }

  private static Report.Table table(World levee, Load a, World baseline, Load b) {
    return new Report.Table("Summary", List.of("", "requests", "answered", "by fallback", "failed", "loss",
        "upstream calls", "amplification", "latency p50", "latency p99"), List.of(tableRow("with Levee", levee, a), tableRow("without Levee", baseline, b)));
  }

  private static List<String> tableRow(String name, World world, Load load) {
    int sent = load.total(load.sent);
    int calls = world.upstreamCalls().size();
    return List.of(name, String.valueOf(sent), String.valueOf(load.total(load.primary) + load.total(load.fallback)),
        String.valueOf(load.total(load.fallback)), String.valueOf(load.total(load.failed)),
        String.format(java.util.Locale.ROOT, "%.1f%%", 100 * ratio(load.total(load.failed), sent)), String.valueOf(calls),
        String.format(java.util.Locale.ROOT, "%.2f", ratio(calls, sent)),
        seconds(load.latencySeconds(50)), seconds(load.latencySeconds(99)));
  }

  private void header(int seconds) {
    out.println("Levee demo: " + seconds + " s, " + rate + " requests/s on each side, " + clients
        + " official Java SDK clients (their retries off), every third request streamed.");
    out.println(scenario == null ? Incident.describe(duration) : "incident: the scenario file given");
    out.println("with Levee: smart = [claude-opus-4-6 -> claude-haiku-4-5], 2 retries with full jitter, breaker (open 4 s),");
    out.println("            retry budget (50 tokens, +0.25 per request), tiers (T1 answers from the reduced model,");
    out.println("            claude-haiku-4-5)");
    out.println("without:    smart = [claude-opus-4-6], no retries, no fallback, no breaker");
    loadAtStart = machine.get();
    out.println("machine:    " + MachineLoad.describe(loadAtStart) + (loadAtStart != null && loadAtStart.starved()
        ? " (starved: the figures will be unreliable)" : ""));
    out.println();
    out.println("Per second: requests sent; answers by the primary and by the fallback (T1's reduced model is the");
    out.println("fallback too) and failures, counted when they finish; the default feature's tier; the primary's");
    out.println("circuit (it admits a trial only when called, so it stays OPEN while T1 bypasses it); retry-budget");
    out.println("tokens left; upstream calls. Right: the same load without resilience. The last row, later, counts");
    out.println("what ended after its second's row was printed (requests in flight when the drill ended), so each");
    out.println("column sums to the summary below.");
    out.println();
    out.println(Timeline.HEADER);
  }

  private void row(int s, World levee, Load a, World baseline, Load b) {
    if (s + 1 < readings.tier.length) {
      readings.record(s + 1, levee); // read as second s ends
    }
    Timeline.Counts counts = new Timeline.Counts(a.sent.get(s), a.primary.get(s), a.fallback.get(s), a.failed.get(s),
        callsIn(levee, s), b.primary.get(s) + b.fallback.get(s), b.failed.get(s), callsIn(baseline, s));
    out.print(timeline.row(s, counts, levee.tier(), levee.primaryCircuit().name(), levee.budgetLeft()));
    out.flush();
  }

  /** Both worlds' totals, as the summary counts them. */
  private static Timeline.Counts totals(World levee, Load a, World baseline, Load b) {
    return new Timeline.Counts(a.total(a.sent), a.total(a.primary), a.total(a.fallback), a.total(a.failed),
        levee.upstreamCalls().size(), b.total(b.primary) + b.total(b.fallback), b.total(b.failed),
        baseline.upstreamCalls().size());
  }

  private Result summary(Timeline.Counts t, Load a, Load b) {
    double lossA = ratio(t.failed(), t.sent());
    double lossB = ratio(t.baselineFailed(), b.total(b.sent));
    double ampA = ratio(t.calls(), t.sent());
    double ampB = ratio(t.baselineCalls(), b.total(b.sent));
    out.println();
    out.println("                 requests  answered  by fallback  failed    loss  upstream calls  amplification"
        + "  latency p50     p99");
    out.printf("with Levee       %8d  %8d  %11d  %6d  %5.1f%%  %14d  %13.2f  %11s  %6s%n", t.sent(),
        t.primary() + t.fallback(), t.fallback(), t.failed(), 100 * lossA, t.calls(), ampA,
        seconds(a.latencySeconds(50)), seconds(a.latencySeconds(99)));
    out.printf("without Levee    %8d  %8d  %11d  %6d  %5.1f%%  %14d  %13.2f  %11s  %6s%n", b.total(b.sent),
        t.baselineAnswered(), b.total(b.fallback), t.baselineFailed(), 100 * lossB, t.baselineCalls(), ampB,
        seconds(b.latencySeconds(50)), seconds(b.latencySeconds(99)));
    out.println();
    out.println("loss = failed / requests; amplification = upstream calls / client requests; latency = the client's");
    out.println("time from sending a request to the end of its answer, over the answered ones (retries and fallbacks");
    out.println("cost time: that is the price of the answers the other side lost).");
    return new Result(lossA, ampA, lossB, ampB);
  }

  private static String seconds(double value) {
    return String.format(java.util.Locale.ROOT, "%.2f s", value);
  }

  private static int callsIn(World world, int second) {
    List<LogEntry> calls = world.upstreamCalls();
    return (int) calls.stream().filter(e -> e.atMs() / 1000 == second).count();
  }

  private static double ratio(int part, int whole) {
    return whole == 0 ? 0 : (double) part / whole;
  }

  private static void waitUntil(long nanos) throws InterruptedException {
    long left = nanos - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }
}
