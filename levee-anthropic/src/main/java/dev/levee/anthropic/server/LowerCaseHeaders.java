package dev.levee.anthropic.server;

import java.util.LinkedHashMap;
import java.util.List;

/**
 * A request's headers with every name in lower case (HTTP field names are case-insensitive, RFC
 * 9110 §5.1), names in arrival order, a repeated name's values in order. Readers that know the
 * type look a name up with {@link #get} instead of comparing every name without case; a map of
 * any other type may hold names in any case. Built by {@link ServerIo#headers}; not thread-safe.
 */
public final class LowerCaseHeaders extends LinkedHashMap<String, List<String>> {

  LowerCaseHeaders() {}
}
