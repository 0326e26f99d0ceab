package dev.levee.bench.sidebyside;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code --name value} options of a benchmark command: each name one it knows, each with one
 * value. {@code --help} prints the usage and exits 0; an unknown name, a name without its value or
 * a value {@link #check} refuses prints why and the usage and exits 2 — before anything starts.
 */
final class BenchOptions {

  private final String usage;

  private BenchOptions(String usage) {
    this.usage = usage;
  }

  /**
   * Reads {@code args} over {@code defaults}; {@code optional} names have no default.
   *
   * @param usage the one-line usage, e.g. {@code "SideBySide [--rounds 3] …"}
   */
  static Map<String, String> parse(String[] args, Map<String, String> defaults, Set<String> optional, String usage) {
    BenchOptions help = new BenchOptions(usage);
    Map<String, String> opt = new LinkedHashMap<>(defaults);
    for (int i = 0; i < args.length; i += 2) {
      if (args[i].equals("--help") || args[i].equals("-h")) {
        System.out.println("usage: " + usage);
        System.exit(0);
      }
      String name = args[i].replaceFirst("^--", "");
      if (!args[i].startsWith("--") || !defaults.containsKey(name) && !optional.contains(name)) {
        help.refuse("unknown option " + args[i]);
      }
      if (i + 1 >= args.length) {
        help.refuse(args[i] + " needs a value");
      }
      opt.put(name, args[i + 1]);
    }
    return opt;
  }

  /** Exits 2 with {@code why} and the usage when {@code ok} is false. */
  static void check(boolean ok, String why, String usage) {
    if (!ok) {
      new BenchOptions(usage).refuse(why);
    }
  }

  private void refuse(String why) {
    System.err.println(why + "\nusage: " + usage);
    System.exit(2);
  }
}
