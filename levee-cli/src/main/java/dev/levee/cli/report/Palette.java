package dev.levee.cli.report;

import java.util.List;

/** The colours and tier levels both reports use, so a drill and a demo read alike. */
public final class Palette {

  public static final String BLUE = "#3182ce";
  public static final String GREEN = "#38a169";
  public static final String ORANGE = "#dd6b20";
  public static final String RED = "#e53e3e";
  public static final String PURPLE = "#805ad5";
  public static final String GREY = "#718096";
  /** The shade of a storm or an outage band. */
  public static final String STORM = "#e53e3e";
  /** The shade of a partial-fault band. */
  public static final String PARTIAL = "#dd6b20";

  /** The tiers as a {@link Chart.Style#LEVEL} chart names them, T0 at the top. */
  public static final List<String> TIERS = List.of("T0 full", "T1 reduced", "T2 cached", "T3 static");

  private Palette() {}
}
