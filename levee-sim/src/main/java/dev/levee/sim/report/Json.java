package dev.levee.sim.report;

/** The few JSON literals the reports write; no parsing. */
final class Json {

  private Json() {}

  /** A JSON value for a String, Number, Boolean or null; NaN and infinities become null. */
  static String value(Object value) {
    if (value == null) return "null";
    if (value instanceof Double d) return d.isNaN() || d.isInfinite() ? "null" : d.toString();
    if (value instanceof Float f) return f.isNaN() || f.isInfinite() ? "null" : f.toString();
    if (value instanceof Number || value instanceof Boolean) return value.toString();
    return string(value.toString());
  }

  /** A quoted, escaped JSON string. */
  static String string(String s) {
    StringBuilder out = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      switch (ch) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (ch < 0x20) out.append(String.format("\\u%04x", (int) ch));
          else out.append(ch);
        }
      }
    }
    return out.append('"').toString();
  }
}
