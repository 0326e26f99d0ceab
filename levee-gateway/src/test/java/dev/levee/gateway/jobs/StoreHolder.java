package dev.levee.gateway.jobs;

import java.io.IOException;
import java.nio.file.Path;

/**
 * An embedded job store held open by a process of its own, for tests of {@link StoreLock}: {@code
 * StoreHolder <folder>} opens the store in {@code folder}, prints {@code HELD}, then keeps it until
 * its standard input closes or it is killed.
 */
public final class StoreHolder {

  private StoreHolder() {}

  public static void main(String[] args) throws IOException {
    try (Database db = Database.open(TestStores.config("", "public", args[0]))) {
      System.out.println("HELD");
      System.out.flush();
      while (System.in.read() >= 0) {
        // held until stdin closes
      }
    }
  }

  /**
   * Starts a holder of the store in {@code folder}, with this test run's classpath. Its temp files
   * (SQLite's native library, which a killed process never deletes) go to {@code folder} too.
   */
  static Process launch(Path folder) throws IOException {
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    return new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED",
        "-Djava.io.tmpdir=" + folder.toAbsolutePath(), "-cp", classpath,
        StoreHolder.class.getName(), folder.toString())
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
  }
}
