package dev.levee.bench.sidebyside;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The floor proxies of one side-by-side run ({@code --floor jetty,codec}), each in its own JVM:
 * named {@code floor} when there is one (as earlier runs' reports name it), {@code floor-<mode>}
 * when there are several. Closing stops them all.
 */
record Floors(Map<String, LeveeChild> byName) implements AutoCloseable {

  /** Starts a {@link FloorProxy} per comma-separated mode on {@code classPath}; none when {@code modes} is null. */
  static Floors start(String classPath, String modes, String jvm, URI upstream) throws Exception {
    Map<String, LeveeChild> byName = new LinkedHashMap<>();
    Floors floors = new Floors(byName);
    if (modes == null) {
      return floors;
    }
    String[] each = modes.split(",");
    try {
      for (String mode : each) {
        byName.put(each.length == 1 ? "floor" : "floor-" + mode,
            LeveeChild.start(classPath, null, jvm, FloorProxy.class.getName(), mode, upstream.toString()));
      }
    } catch (Exception e) {
      floors.close();
      throw e;
    }
    return floors;
  }

  @Override
  public void close() throws Exception {
    for (LeveeChild floor : byName.values()) {
      floor.close();
    }
  }
}
